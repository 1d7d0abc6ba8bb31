import { randomUUID } from "node:crypto";
import { createDomain } from "../../src/modules/domains/domains.service";
import { Domain } from "../../src/modules/domains/domain.entity";
import { DomainUser } from "../../src/modules/domains/domain-user.entity";
import { User } from "../../src/modules/users/user.entity";
import type { DomainCreateInput } from "../../src/modules/domains/domains.schemas";
import type { TestApp } from "./spawn-app";
import { createUser, type TestUser } from "./factories";

/** A domain created through the service (roles, owner membership and all), owned by `owner`. */
export async function makeDomain(t: TestApp, owner: TestUser, input: Partial<DomainCreateInput> = {}): Promise<Domain> {
  const em = t.orm.em.fork();
  const user = await em.findOneOrFail(User, { id: owner.user.id });
  return createDomain(em, user, { name: input.name ?? `Domain ${randomUUID().slice(0, 6)}`, ...input });
}

/** Adds `member` to the domain with `role`, straight in the database. */
export async function addMembership(t: TestApp, domain: Domain, member: TestUser, role: string): Promise<void> {
  const em = t.orm.em.fork();
  em.create(DomainUser, {
    domain: em.getReference(Domain, domain.id),
    user: em.getReference(User, member.user.id),
    role,
  });
  await em.flush();
}

export async function membershipOf(t: TestApp, domainId: string, userId: string): Promise<string | null> {
  const row = await t.orm.em.fork().findOne(DomainUser, { domain: domainId, user: userId });
  return row?.role ?? null;
}

/**
 * The cast of the authorization tests: a domain with an owner, an admin-role member, a user-role
 * member, a guest-role member, plus a non-member and a site root.
 */
export interface Cast {
  domain: Domain;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  guest: TestUser;
  outsider: TestUser;
  siteRoot: TestUser;
}

export async function makeCast(t: TestApp, input: Partial<DomainCreateInput> = {}): Promise<Cast> {
  const owner = await createUser(t, { role: "admin" });
  const domain = await makeDomain(t, owner, input);
  const [admin, member, guest, outsider, siteRoot] = await Promise.all([
    createUser(t),
    createUser(t),
    createUser(t),
    createUser(t),
    createUser(t, { role: "root" }),
  ]);
  await addMembership(t, domain, admin, "admin");
  await addMembership(t, domain, member, "user");
  await addMembership(t, domain, guest, "guest");
  return { domain, owner, admin, member, guest, outsider, siteRoot };
}
