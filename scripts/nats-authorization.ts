// Prints the nats-server `authorization` block giving every service its own user and
// permissions (natsAuthorization of @gridlab/bus), for the NATS chart's configuration:
//   NATS_PASSWORD_INDEXER=... NATS_PASSWORD_API_GATEWAY=... ... \
//     node --import tsx scripts/nats-authorization.ts [prefix] > auth.conf
// Each password comes from the environment (NATS_PASSWORD_<SERVICE>, the same value as that
// service's NATS_PASSWORD); store the output in a Secret and include it (k8s/README.md).
import { natsAuthorization, NATS_SERVICES, type NatsService } from '../libs/bus/src';
import { natsNames } from '../libs/contracts/src';

const passwords = {} as Record<NatsService, string>;
for (const service of NATS_SERVICES) {
  const variable = `NATS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;
  const value = process.env[variable];
  if (value === undefined || value === '') {
    process.stderr.write(`nats-authorization: set ${variable}\n`);
    process.exit(2);
  }
  passwords[service] = value;
}
process.stdout.write(natsAuthorization(natsNames(process.argv[2] ?? ''), passwords));
