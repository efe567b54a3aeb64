// Prints the redis.conf `user` directives giving the gateway, billing and lab-backtest each
// their own Redis user with only their keys and commands (redisAclRules of @gridlab/key-cache),
// for the Redis chart's configuration (k8s/README.md):
//   REDIS_PASSWORD_API_GATEWAY=... REDIS_PASSWORD_BILLING=... REDIS_PASSWORD_LAB_BACKTEST=... \
//     node --import tsx scripts/redis-acl.ts [prefix]
// Each service's REDIS_URL is then redis://<service>:<password>@redis-master:6379.
import { redisAclRules, REDIS_SERVICES } from '../libs/key-cache/src';

const prefix = process.argv[2] ?? 'gridlab:';
const rules = redisAclRules(prefix);
for (const service of REDIS_SERVICES) {
  const variable = `REDIS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;
  const password = process.env[variable];
  if (password === undefined || password === '') {
    process.stderr.write(`redis-acl: set ${variable}\n`);
    process.exit(2);
  }
  process.stdout.write(`user ${service} ${rules[service].filter((r) => r !== 'reset').join(' ')} >${password}\n`);
}
