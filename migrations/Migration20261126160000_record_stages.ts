import { Migration } from "@mikro-orm/migrations";

/** Judging stages (docs/config-reference.md "Stages"): each record's stage outcomes, and the grade book's switch. */
export class Migration20261126160000_record_stages extends Migration {
  override name = "Migration20261126160000_record_stages";

  override up(): void | Promise<void> {
    this.addSql(`alter table "records" add "stages" jsonb not null default '[]';`);
    this.addSql(`alter table "problem_sets" add "grade_stages" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "records" drop column "stages";`);
    this.addSql(`alter table "problem_sets" drop column "grade_stages";`);
  }
}
