import { consoleNotice, planSetup, presetsToSet, setupExtras, thisMachine } from "./runtime/judge-tools";

/**
 * `bun run setup`: makes this machine able to judge. Installs what the built-in judge needs (bubblewrap,
 * gcc, libseccomp-dev, mount), the toolchains of the language presets (SETUP_PRESETS=c,cpp,python3 leaves
 * the others out), redis-server, and what `bun run test` needs besides (the Prometheus parser of the metrics
 * test; curl, jq and zip of the README's steps), with apt-get when something is missing and we are root; otherwise
 * says what to run. It never fails the README's first command: the API works without a judge, and
 * `bun run start` says so again.
 */
const chosen = presetsToSet(process.env.SETUP_PRESETS);
if (chosen.unknown.length > 0)
  console.log(`setup: SETUP_PRESETS names no preset ${chosen.unknown.join(", ")}; left out`);
const extras = setupExtras(chosen.presets);
const plan = planSetup(thisMachine(), extras);

if (plan.kind === "ready") {
  console.log(
    `setup: the judge has everything it needs (bubblewrap, gcc, libseccomp, mount; ${chosen.presets.join(", ")}).`,
  );
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
  const after = planSetup(thisMachine(), extras);
  if (installed && after.kind === "ready") console.log("setup: done; the judge has everything it needs.");
  else
    console.log(
      consoleNotice("setup: installing failed", [
        `Try it by hand: ${plan.command.join(" ")}`,
        "Until then submissions wait for a judge.",
      ]),
    );
}
