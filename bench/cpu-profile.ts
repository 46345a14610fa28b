/** A node of a V8 CPU profile (the inspector's `Profiler.stop`, or `node --cpu-prof`). */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly children?: readonly number[];
}

/** A V8 CPU profile: its nodes, the sampled node ids, and the µs between samples. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** When the profile started, in µs of the monotonic clock (as `process.hrtime`). */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}
