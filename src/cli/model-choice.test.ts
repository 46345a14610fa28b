import { describe, expect, it } from 'vitest';
import { ollamaBase } from './model-choice.js';

describe('ollamaBase', () => {
  it.each([
    ['0.0.0.0', 'http://0.0.0.0:11434/v1'],
    ['localhost', 'http://localhost:11434/v1'],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080/v1'],
    ['http://10.0.0.2:11434', 'http://10.0.0.2:11434/v1'],
    ['http://10.0.0.2:11434/', 'http://10.0.0.2:11434/v1'],
    ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1'],
    ['https://ollama.example', 'https://ollama.example/v1'],
    ['[::1]', 'http://[::1]:11434/v1'],
  ])('%s -> %s', (host, url) => {
    expect(ollamaBase(host)).toBe(url);
  });

  it('refuses an address that is no host', () => {
    expect(() => ollamaBase('http://')).toThrow(/OLLAMA_HOST/);
  });
});
