/**
 * The V8 sampling heap profile as the inspector returns it (`HeapProfiler.stopSampling`), and
 * the bytes of its samples summed per key of the caller's choosing: the allocation benches
 * (`alloc-turn.ts`, `alloc-run.ts`) count each sample for the nearest function of Muster's
 * own code.
 */

/** One frame of a sample's stack. */
export interface HeapFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

/** A node of the profile's call tree. */
export interface HeapNode {
  readonly id: number;
  readonly callFrame: HeapFrame;
  readonly children: readonly HeapNode[];
}

/** A sampling heap profile. */
export interface HeapProfile {
  readonly head: HeapNode;
  readonly samples: readonly { readonly size: number; readonly nodeId: number }[];
}

/** `function file:line` of a frame of the built package. */
export function distFrame({ url, functionName, lineNumber }: HeapFrame): string {
  return `${functionName || '(anonymous)'} ${url.slice(url.lastIndexOf('/') + 1)}:${lineNumber + 1}`;
}

/** Bytes per key, `attribute` naming the key of each sample from its stack (outermost first). */
export function bytesBy(
  profile: HeapProfile,
  attribute: (stack: readonly HeapFrame[]) => string,
): Map<string, number> {
  const size = new Map<number, number>();
  for (const s of profile.samples) size.set(s.nodeId, (size.get(s.nodeId) ?? 0) + s.size);
  const out = new Map<string, number>();
  const walk = (node: HeapNode, stack: HeapFrame[]): void => {
    stack.push(node.callFrame);
    const bytes = size.get(node.id);
    if (bytes) {
      const key = attribute(stack);
      out.set(key, (out.get(key) ?? 0) + bytes);
    }
    for (const child of node.children) walk(child, stack);
    stack.pop();
  };
  walk(profile.head, []);
  return out;
}
