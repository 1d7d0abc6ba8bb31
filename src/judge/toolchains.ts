import { PRESETS, PRESET_NAMES, type LanguagePreset, type PresetName } from "../core/config-model/presets";
import { sandboxHas } from "../core/sandbox-path";

export { SANDBOX_PATH, sandboxHas } from "../core/sandbox-path";

/** What a preset lacks on this machine, as a sentence naming the packages; null when it can run. */
export function presetGap(preset: LanguagePreset, has = sandboxHas): string | null {
  const missing = preset.toolchain.filter((tool) => !has(tool.command));
  if (missing.length === 0) return null;
  const packages = [...new Set(missing.map((tool) => tool.pkg))].join(" ");
  const commands = missing.map((tool) => tool.command).join(", ");
  return `${commands} not installed (apt-get install ${packages}, or bun run setup)`;
}

/** Which presets this judge can run, and why not the others: logged at start-up. */
export function presetReport(has = sandboxHas): { ready: PresetName[]; missing: Record<string, string> } {
  const ready: PresetName[] = [];
  const missing: Record<string, string> = {};
  for (const name of PRESET_NAMES) {
    const gap = presetGap(PRESETS[name], has);
    if (gap) missing[name] = gap;
    else ready.push(name);
  }
  return { ready, missing };
}
