import { checkTarget, resolveTarget, type Lookup } from './target';

const reasonOf = (raw: string, policy = {}): string | null => {
  const c = checkTarget(raw, policy);
  return c.ok ? null : c.reason;
};

describe('checkTarget', () => {
  it('takes a public https URL', () => {
    const c = checkTarget('https://hooks.example.com/gridlab?x=1');
    expect(c.ok && c.url.href).toBe('https://hooks.example.com/gridlab?x=1');
  });

  it('refuses what is not https, unless the operator allows http', () => {
    expect(reasonOf('http://hooks.example.com/')).toBe('the URL must be https');
    expect(reasonOf('ftp://hooks.example.com/', { allowHttp: true })).toBe('the URL must be https or http');
    expect(reasonOf('file:///etc/passwd')).toBe('the URL must be https');
    expect(reasonOf('http://hooks.example.com/', { allowHttp: true })).toBeNull();
    expect(reasonOf('/relative')).toBe('not an absolute URL');
  });

  it('refuses a user name or password in the URL', () => {
    expect(reasonOf('https://user:pw@hooks.example.com/')).toBe('the URL must not carry a user name or password');
  });

  it('allows port 443 only, unless told otherwise', () => {
    expect(reasonOf('https://hooks.example.com:8443/')).toBe('port 8443 is not allowed (allowed: 443)');
    expect(reasonOf('https://hooks.example.com:443/')).toBeNull();
    expect(reasonOf('https://hooks.example.com:8443/', { ports: [8443] })).toBeNull();
  });

  it.each([
    ['https://127.0.0.1/'],
    ['https://2130706433/'],
    ['https://0x7f.1/'],
    ['https://0177.0.0.1/'],
    ['https://017700000001/'],
    ['https://[::1]/'],
    ['https://[::ffff:7f00:1]/'],
    ['https://[::ffff:127.0.0.1]/'],
    ['https://169.254.169.254/latest/meta-data/'],
    ['https://[fd00:ec2::254]/'],
    ['https://0/'],
  ])('refuses %s: however it is written, it is not a public address', (raw) => {
    expect(reasonOf(raw)).toMatch(/^the target is not a public address/);
  });

  it('lets private literals through when the operator allows them', () => {
    expect(reasonOf('https://10.0.0.5/', { allowPrivate: true })).toBeNull();
  });
});

describe('resolveTarget', () => {
  const answers = (list: string[]): Lookup => async () => list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('pins the first address of a name that resolves only to public ones', async () => {
    expect(await resolveTarget(new URL('https://hooks.example.com/'), {}, answers(['93.184.216.34', '2606:2800:220:1::1']))).toEqual({ ok: true, address: { address: '93.184.216.34', family: 4 } });
  });

  it('refuses a name with one address that is not public among public ones', async () => {
    const r = await resolveTarget(new URL('https://hooks.example.com/'), {}, answers(['93.184.216.34', '10.0.0.7']));
    expect(r).toEqual({ ok: false, reason: 'hooks.example.com resolves to an address that is not public (10.0.0.7 is IPv4 private)' });
  });

  it('refuses a name that resolves to loopback (localhost) or the metadata address', async () => {
    expect((await resolveTarget(new URL('https://localhost/'), {}, answers(['127.0.0.1']))).ok).toBe(false);
    expect((await resolveTarget(new URL('https://metadata.internal/'), {}, answers(['169.254.169.254']))).ok).toBe(false);
    expect((await resolveTarget(new URL('https://v6.internal/'), {}, answers(['::ffff:10.0.0.1']))).ok).toBe(false);
  });

  it('says when a name does not resolve', async () => {
    const failing: Lookup = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect(await resolveTarget(new URL('https://nowhere.invalid/'), {}, failing)).toEqual({ ok: false, reason: 'nowhere.invalid does not resolve (ENOTFOUND)' });
    expect(await resolveTarget(new URL('https://empty.example/'), {}, answers([]))).toEqual({ ok: false, reason: 'empty.example does not resolve' });
  });

  it('pins a literal address without asking DNS', async () => {
    const never: Lookup = async () => {
      throw new Error('asked');
    };
    expect(await resolveTarget(new URL('https://[2606:4700:4700::1111]/'), {}, never)).toEqual({ ok: true, address: { address: '2606:4700:4700::1111', family: 6 } });
  });
});
