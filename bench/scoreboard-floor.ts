import { SQL } from "bun";
import { jwt } from "@elysiajs/jwt";

/**
 * `bench:scoreboard`'s floor: what reading a board's rows costs with nothing else in the way. The rows are a
 * set's records with their committer's username, the columns the board uses, read raw (no case is looked
 * into). Run by the benchmark as a process of its own, like the app (`PORT`, `DATABASE_URL`, `JWT_SECRET`):
 * a bare Bun.serve + Bun.sql server that, for `GET /sets/<id>`, verifies the JWT, reads the caller, reads the
 * rows and answers them as JSON.
 */

export const floorRows = (sql: SQL, set: string) =>
  sql`select r.id, r.committer_id, u.username, r.problem_id, r.score, r.state, r.created_at, r.updated_at,
             r.config_id, r.language
        from records r join users u on u.id = r.committer_id
       where r.problem_set_id = ${set} and r.state <> 'failed'`;

if (import.meta.main) {
  const sql = new SQL(process.env.DATABASE_URL!, { max: 10 });
  const verifier = jwt({ name: "jwt", secret: process.env.JWT_SECRET!, alg: "HS256" }).decorator.jwt;
  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(process.env.PORT),
    idleTimeout: 60,
    async fetch(request) {
      const token = request.headers.get("authorization")?.slice(7) ?? "";
      const claims = await verifier.verify(token, { algorithms: ["HS256"] });
      if (!claims) return new Response("no", { status: 401 });
      const [user] = await sql`select id, username, role, is_active from users where id = ${claims.sub as string}`;
      const set = new URL(request.url).pathname.split("/")[2];
      const rows = await floorRows(sql, set);
      return Response.json({ errorCode: "Success", errorMsg: null, data: { user: user.id, rows } });
    },
  });
}
