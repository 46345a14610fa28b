import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../model/index.js';
import { toolMediaCaption, writeTranscript } from './index.js';
import type { TranscriptWriter } from './index.js';

/** A writer that spells every item as a short string, so the order is easy to read. */
const WRITER: TranscriptWriter<string, string> = {
  text: (text) => `text:${text}`,
  image: (image) => (image.url === undefined ? undefined : `image:${image.url}`),
  system: (content) => `system:${content}`,
  user: (content) => `user[${content.join(' | ')}]`,
  assistant: (message) => message.content.map((part) => `assistant:${part.type}`),
  toolResult: (message) => `tool:${message.callId}`,
};

const png = (url?: string) => ({ type: 'image' as const, mimeType: 'image/png', url });

describe('writeTranscript', () => {
  it('puts the images of a run of tool results in one user message after the run', () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }, png('u.png'), png()] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', callId: 'a', name: 'x', arguments: {} }],
      },
      {
        role: 'tool',
        callId: 'a',
        toolName: 'x',
        content: 'A',
        isError: false,
        media: [png('a.png')],
      },
      { role: 'tool', callId: 'b', toolName: 'y', content: 'B', isError: false },
      { role: 'tool', callId: 'c', toolName: 'z', content: 'C', isError: false, media: [png()] },
      {
        role: 'tool',
        callId: 'd',
        toolName: 'w',
        content: 'D',
        isError: false,
        media: [png('d.png')],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Done' }] },
      {
        role: 'tool',
        callId: 'e',
        toolName: 'v',
        content: 'E',
        isError: false,
        media: [png('e.png')],
      },
    ];
    expect(writeTranscript(messages, WRITER)).toEqual([
      'system:Be brief.',
      'user[text:Hi | image:u.png]',
      'assistant:tool-call',
      'tool:a',
      'tool:b',
      'tool:c',
      'tool:d',
      `user[text:${toolMediaCaption('x', 'a')} | image:a.png | text:${toolMediaCaption('w', 'd')} | image:d.png]`,
      'assistant:text',
      'tool:e',
      `user[text:${toolMediaCaption('v', 'e')} | image:e.png]`,
    ]);
  });

  it('names the tool and the call in the caption', () => {
    expect(toolMediaCaption('get_weather', 'call_1')).toBe(
      'Images returned by tool get_weather (call call_1):',
    );
  });
});
