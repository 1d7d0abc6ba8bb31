import { Migration } from "@mikro-orm/migrations";

export class Migration20261124050000_identity_keys_capital_sharp_s extends Migration {
  override name = "Migration20261124050000_identity_keys_capital_sharp_s";

  override async up(): Promise<void> {
    // identityKey now lower-cases before it upper-cases (src/auth/names.ts). Over every code point that
    // changes one key only: the capital sharp s, which used to become "ß" and now becomes "ss", as "ß"
    // itself always did. So a key holding "ß" takes "ss", unless another row's key is, or would
    // become, the same: then it keeps its old key (as the first key migration did), and both accounts
    // go on working.
    for (const column of ["username_lower", "email_lower"]) {
      this.addSql(`update "users" u set "${column}" = replace(u."${column}", 'ß', 'ss')
        where u."${column}" like '%ß%'
          and not exists (select 1 from "users" o
                           where o."id" <> u."id" and replace(o."${column}", 'ß', 'ss') = replace(u."${column}", 'ß', 'ss'));`);
    }
  }

  override down(): void {
    // Keys are derived data: the old ones are not needed back (identityKey of the old code would differ anyway).
  }
}
