import type { RunCgroup } from "./cgroups/cgroups";

type GroupLimits = { memoryKb: number; processes: number };
const keyOf = (limits: GroupLimits) => `${limits.memoryKb}/${limits.processes}`;

/**
 * A slot group's reset for the next run, done ahead: as soon as the runner's trailer says the container is
 * clean, with the last run's limits (the cases of a record share them), while the judge compares the output
 * and stages the next case. The check for what a run left (the group's procs, memory.stat, a reclaim) and
 * the zeroing of its counters took ~0.12-0.19 ms of every run between the trailer and the request
 * (docs/benchmarks.md). Nothing joins the group in between: the next program joins after its request.
 * A run waits for it, and resets again only for other limits. What the reset threw (CgroupDirty) is thrown
 * to that run, as if it had reset then.
 */
export class ResetAhead {
  private pending: Promise<{ key: string } | { error: unknown }> | null = null;

  constructor(private readonly cgroup: RunCgroup) {}

  /** Resets the group for `limits` once `clean` resolves true (nothing when the container is not clean). */
  begin(clean: Promise<boolean>, limits: GroupLimits): void {
    // A reset that throws waits, as a value, for the run it belongs to.
    this.pending = clean
      .then(async (ok) => {
        if (!ok) return { key: "" };
        await this.cgroup.reset(limits);
        return { key: keyOf(limits) };
      })
      .catch((error: unknown) => ({ error }));
  }

  /**
   * The group reset for `limits`: the reset done ahead when it was for them, its counters zeroed again now
   * (the twins: a C probe after 200 forks read 1,464 KiB against 264 fresh when its peak started at the
   * reset just after the trailer, before the kernel had freed the forks' memory), else one now.
   */
  async reset(limits: GroupLimits): Promise<void> {
    const pending = this.pending;
    this.pending = null;
    const ahead = pending ? await pending : null;
    if (ahead && "error" in ahead) throw ahead.error;
    if (ahead?.key === keyOf(limits)) this.cgroup.rearm();
    else await this.cgroup.reset(limits);
  }

  /** Waits out a reset in flight: the container is going, and the group with it may be made anew. */
  async drop(): Promise<void> {
    const pending = this.pending;
    this.pending = null;
    await pending;
  }
}
