import { expect, test } from "bun:test";
import { createTokenCodec } from "../../src/modules/identity/http/auth.plugin";

// Verified tokens are remembered: what the memory must never do is outlive a token or trust a look-alike.
const codec = createTokenCodec("a-test-secret-of-enough-length-0123456789");

test("a remembered token is refused once its exp has passed", async () => {
  const now = Math.floor(Date.now() / 1000);
  const token = await codec.sign({ sub: "x", exp: now + 1 });
  expect(await codec.verify(token)).toMatchObject({ sub: "x" });
  expect(await codec.verify(token)).toMatchObject({ sub: "x" });
  await Bun.sleep((now + 1) * 1000 - Date.now() + 50);
  expect(await codec.verify(token)).toBeNull();
});

test("only the exact token text hits: a changed signature or payload is verified, and refused", async () => {
  const token = await codec.sign({ sub: "y", exp: Math.floor(Date.now() / 1000) + 600 });
  expect(await codec.verify(token)).toMatchObject({ sub: "y" });
  const [header, payload, signature] = token.split(".");
  const forged = Buffer.from(JSON.stringify({ sub: "root", exp: Math.floor(Date.now() / 1000) + 600 })).toString(
    "base64url",
  );
  expect(await codec.verify(`${header}.${forged}.${signature}`)).toBeNull();
  expect(await codec.verify(`${header}.${payload}.${signature.slice(0, -2)}AA`)).toBeNull();
});

test("a caller mutating returned claims does not change what the next request sees", async () => {
  const token = await codec.sign({ sub: "z", exp: Math.floor(Date.now() / 1000) + 600 });
  const first = (await codec.verify(token))!;
  first.sub = "root";
  expect(await codec.verify(token)).toMatchObject({ sub: "z" });
});
