import { abortedError } from '../errors/index.js';
import type { MusterError } from '../errors/index.js';
import { EventQueue } from './event-queue.js';
import type { AgentEvent } from './events.js';

/**
 * The events of one run, as `run()` yields them: nothing starts before the first `next()`;
 * `execute` then pushes the run's events into the queue and resolves with the run's error, if
 * any, which is thrown after the last event. Breaking out of the loop aborts the run (through
 * `controller`) and waits for it to end, so everything the run opened is closed by then.
 */
export async function* runEvents(
  execute: (
    queue: EventQueue<AgentEvent>,
    controller: AbortController,
  ) => Promise<MusterError | undefined>,
): AsyncGenerator<AgentEvent> {
  const queue = new EventQueue<AgentEvent>();
  const controller = new AbortController();
  const task = execute(queue, controller).finally(() => queue.close());
  let drained = false;
  try {
    // the queue is read here directly (not through a second generator): one promise per
    // wait for an empty queue, none per event
    for (;;) {
      for (let ev = queue.take(); ev !== undefined; ev = queue.take()) yield ev;
      if (queue.done) break;
      await queue.wait();
    }
    drained = true;
  } finally {
    if (!drained)
      controller.abort(abortedError('The run', new Error('the consumer stopped iterating')));
    await task;
  }
  const error = await task;
  if (error) throw error;
}
