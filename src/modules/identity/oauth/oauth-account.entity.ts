import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../../db/base-properties";
import { User } from "../../users/user.entity";

/**
 * A provider account linked to a user: one per provider and account, one per provider and user. No
 * provider token is stored; the link is all a later login needs.
 */
export const OAuthAccount = defineEntity({
  name: "OAuthAccount",
  tableName: "user_oauth_accounts",
  uniques: [
    { name: "user_oauth_accounts_account_unique", properties: ["oauthName", "accountId"] },
    { name: "user_oauth_accounts_user_unique", properties: ["user", "oauthName"] },
  ],
  properties: {
    ...baseProperties,
    oauthName: p.string().length(32),
    accountId: p.string().length(255),
    accountName: p.string().length(255),
    accountEmail: p.string().length(320),
    user: () => p.manyToOne(User).deleteRule("cascade"),
  },
});

export type OAuthAccount = InferEntity<typeof OAuthAccount>;
