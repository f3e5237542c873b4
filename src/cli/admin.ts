import { type Config, PLANS, type Plan } from '../config.js';
import { findOrganizationBySlug, setOrganizationPlan } from '../modules/organizations/repo.js';
import { organizationInput } from '../modules/organizations/schema.js';
import { addMember, createOrganization } from '../modules/organizations/service.js';
import { findUserByEmail } from '../modules/users/repo.js';
import { expirations } from '../modules/users/schema.js';
import { issueToken, register } from '../modules/users/service.js';
import { jobsReport } from '../platform/jobs/report.js';
import { makeTenantContext, ROLES, type Role } from '../platform/tenancy/context.js';
import { printDemo, withDeps } from './deps.js';
import { UsageError } from './usage.js';

export interface AdminArgs {
  sub: string | undefined;
  rest: string[];
  /** The string options of the command line (--name, --owner, --email, --password, --username, --role, --expiration). */
  values: Partial<
    Record<'name' | 'owner' | 'email' | 'password' | 'username' | 'role' | 'expiration' | 'timeZone', string>
  >;
}

const need = (v: string | undefined, what: string) => {
  if (!v) throw new UsageError(`missing ${what}`);
  return v;
};

/** The admin verbs (everything but serve and worker): each opens the database, does one thing, closes it. */
export async function runAdmin(
  cmd: string,
  config: Config,
  { sub, rest, values }: AdminArgs,
): Promise<number> {
  switch (cmd) {
    case 'jobs':
      await withDeps(config, async ({ db }) => {
        const { counts, failed } = await jobsReport(db);
        for (const c of counts) console.log(`${c.queue.padEnd(24)} ${c.state.padEnd(10)} ${c.count}`);
        if (failed.length) console.log('\nLatest failures:');
        for (const f of failed)
          console.log(`${f.failedAt} ${f.queue} ${f.id} (${f.retryCount} retries): ${f.error}`);
      });
      return 0;
    case 'migrate':
      await withDeps(config, async () => {});
      console.log('Migrations applied.');
      return 0;
    case 'seed-demo':
      await withDeps(config, async (deps) => {
        // The demo seeds through every area's services: loaded only for this verb.
        const { ensureDemo } = await import('../modules/organizations/demo.js');
        printDemo(`http://${config.HOST}:${config.PORT}`, await ensureDemo(deps));
      });
      return 0;
    case 'org': {
      if (sub === 'create') {
        const slug = need(rest[0], 'SLUG');
        const ownerEmail = values.owner;
        // The same schema as POST /organizations: a slug the API would refuse is refused here too.
        const input = organizationInput.safeParse({
          name: values.name ?? slug,
          slug,
          timeZone: values.timeZone,
        });
        if (!input.success) {
          const why = input.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
          throw new UsageError(`invalid organization (${why})`);
        }
        await withDeps(config, async (deps) => {
          const owner = ownerEmail ? await findUserByEmail(deps.db.system, ownerEmail) : undefined;
          if (ownerEmail && !owner) throw new UsageError(`no user with email ${ownerEmail}`);
          if (!owner) throw new UsageError('an organization needs an owner: --owner EMAIL');
          const { org } = await createOrganization(deps, owner.id, input.data);
          console.log(`Created organization ${org.slug} (${org.plan}), owner ${ownerEmail}.`);
        });
        return 0;
      }
      if (sub === 'plan') {
        const slug = need(rest[0], 'SLUG');
        const plan = need(rest[1], 'PLAN') as Plan;
        if (!PLANS.includes(plan)) throw new UsageError(`plan must be one of ${PLANS.join(', ')}`);
        await withDeps(config, async (deps) => {
          if (!(await setOrganizationPlan(deps.db.system, slug, plan)))
            throw new UsageError(`no organization ${slug}`);
          console.log(`Organization ${slug} is now on the ${plan} plan.`);
        });
        return 0;
      }
      if (sub === 'import') {
        const { runOrgImport } = await import('./org-import.js');
        return runOrgImport(config, need(rest[0], 'FILE'));
      }
      throw new UsageError(`unknown org command ${sub ?? ''}`);
    }
    case 'user': {
      if (sub === 'password') {
        const { setUserPassword } = await import('./org-import.js');
        return setUserPassword(config, need(values.email, '--email'), need(values.password, '--password'));
      }
      if (sub !== 'create') throw new UsageError(`unknown user command ${sub ?? ''}`);
      const email = need(values.email, '--email');
      const password = need(values.password, '--password');
      await withDeps(config, async (deps) => {
        const { user } = await register(deps, {
          email,
          password,
          username: values.username ?? email.split('@')[0],
        });
        console.log(`Created user ${user.username} <${user.email}> (id ${user.id}).`);
      });
      return 0;
    }
    case 'member': {
      if (sub !== 'add') throw new UsageError(`unknown member command ${sub ?? ''}`);
      const slug = need(rest[0], 'ORG');
      const email = need(rest[1], 'EMAIL');
      const role = (values.role ?? 'member') as Role;
      if (!ROLES.includes(role)) throw new UsageError(`role must be one of ${ROLES.join(', ')}`);
      await withDeps(config, async (deps) => {
        const org = await findOrganizationBySlug(deps.db.system, slug);
        if (!org) throw new UsageError(`no organization ${slug}`);
        // The CLI acts as the operator: an owner context of that organization.
        const ctx = makeTenantContext(deps.db, {
          orgId: org.id,
          orgSlug: org.slug,
          plan: org.plan as Plan,
          userId: 0,
          membershipId: 0,
          membershipDocumentId: '',
          role: 'owner',
          scopes: null,
        });
        const m = await addMember(ctx, { email, role });
        console.log(`Added ${email} to ${slug} as ${m.role} (membership ${m.documentId}).`);
      });
      return 0;
    }
    case 'token': {
      if (sub !== 'create') throw new UsageError(`unknown token command ${sub ?? ''}`);
      const email = need(values.email, '--email');
      const expiration = (values.expiration ?? '30d') as (typeof expirations)[number];
      if (!expirations.includes(expiration))
        throw new UsageError(`--expiration must be one of ${expirations.join(', ')}`);
      await withDeps(config, async (deps) => {
        const user = await findUserByEmail(deps.db.system, email);
        if (!user) throw new UsageError(`no user with email ${email}`);
        const t = await issueToken(deps, user.id, { expiration, name: 'CLI token' });
        console.log(t.token);
      });
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${cmd}`);
  }
}
