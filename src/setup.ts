import { consoleNotice, planSetup, thisMachine } from "./runtime/judge-tools";

/**
 * `bun run setup`: makes this machine able to judge. Installs what the built-in judge needs (bubblewrap,
 * gcc, libseccomp-dev, mount) with apt-get when it is missing and we are root; otherwise says what to run. It never
 * fails the README's first command: the API works without a judge, and `bun run start` says so again.
 */
const plan = planSetup(thisMachine());

if (plan.kind === "ready") {
  console.log("setup: the judge has everything it needs (bubblewrap, gcc, libseccomp, mount).");
} else if (plan.kind === "cannot") {
  console.log(
    consoleNotice("setup: the judge cannot be set up here", [
      `It needs: ${plan.tools.map((tool) => `${tool.pkg} (${tool.purpose})`).join(", ")}.`,
      `It cannot install them: ${plan.why}.`,
      `Run: ${plan.fix}`,
      "Until then the API runs, but submissions wait for a judge.",
    ]),
  );
} else {
  console.log(
    `setup: installing what the judge needs: ${plan.tools.map((tool) => `${tool.pkg} (${tool.purpose})`).join(", ")}`,
  );
  console.log(`setup: ${plan.command.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const run = (cmd: string[]) => Bun.spawnSync(cmd, { stdio: ["ignore", "inherit", "inherit"], env }).exitCode;
  // A fresh machine often has no package lists yet: update once, then try again.
  const installed = run(plan.command) === 0 || (run(["apt-get", "update"]) === 0 && run(plan.command) === 0);
  const after = planSetup(thisMachine());
  if (installed && after.kind === "ready") console.log("setup: done; the judge has everything it needs.");
  else
    console.log(
      consoleNotice("setup: installing failed", [
        `Try it by hand: ${plan.command.join(" ")}`,
        "Until then submissions wait for a judge.",
      ]),
    );
}
