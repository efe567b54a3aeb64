import { SseParser } from './sse';

describe('SseParser', () => {
  it('splits frames across arbitrary chunk boundaries, with ids, events, comments and multi-line data', () => {
    const text = ': ping\r\n\r\nid: 7\nevent: tier\ndata: {"a":1}\n\ndata: one\ndata: two\r\nretry: 1500\r\n\r\nid: 8\ndata:x\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const messages = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(messages).toEqual([
        { id: '7', event: 'tier', data: '{"a":1}', retry: null },
        { id: null, event: 'message', data: 'one\ntwo', retry: 1500 },
        { id: '8', event: 'message', data: 'x', retry: null },
      ]);
    }
  });

  it('keeps an unfinished frame until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('id: 1\ndata: a\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ id: '1', event: 'message', data: 'a', retry: null }]);
  });
});
