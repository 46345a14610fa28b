import { resolve } from 'node:path';
import { MusterError } from '../errors/index.js';
import type { ModelClient } from '../model/index.js';
import type { CliIo } from './cli-io.js';
import { scriptedFileModel } from './scripted-file.js';
import { importVendor } from './vendor-import.js';

/** What `--model` / `MUSTER_MODEL` and `--base-url` chose. */
export interface ModelChoice {
  readonly model: ModelClient;
  /** The provider's model name (absent for scripted models). */
  readonly modelName?: string;
}

const HOW =
  'Pass --model provider:name (or set MUSTER_MODEL): openai:<model>, anthropic:<model>, ollama:<model> or scripted:<file.json>.';

/**
 * Builds the model a run uses from `spec` (`provider:name`). Vendor SDKs are loaded with a
 * dynamic `import()` only here, so commands that need no model never load one; a vendor SDK
 * that is not installed fails with `INVALID_CONFIGURATION` giving its `npm i` line. OpenAI uses
 * the Responses API; Ollama uses Chat Completions against its OpenAI-compatible endpoint.
 */
export async function chooseModel(
  spec: string | undefined,
  baseUrl: string | undefined,
  io: CliIo,
): Promise<ModelChoice> {
  const value = spec ?? io.env['MUSTER_MODEL'];
  if (value === undefined || value === '') {
    throw new MusterError('INVALID_CONFIGURATION', `No model chosen. ${HOW}`);
  }
  const colon = value.indexOf(':');
  const provider = colon < 0 ? value : value.slice(0, colon);
  const name = colon < 0 ? '' : value.slice(colon + 1);
  if (name === '') {
    throw new MusterError('INVALID_CONFIGURATION', `The model '${value}' names no model. ${HOW}`);
  }
  switch (provider) {
    case 'openai': {
      const apiKey = requireKey(io, 'OPENAI_API_KEY', 'openai');
      const { openaiResponses } = await importVendor(
        'openai',
        value,
        () => import('../providers/openai.js'),
      );
      return {
        model: openaiResponses({ apiKey, modelName: name, ...baseURL(baseUrl) }),
        modelName: name,
      };
    }
    case 'anthropic': {
      const apiKey = requireKey(io, 'ANTHROPIC_API_KEY', 'anthropic');
      const { anthropic } = await importVendor(
        '@anthropic-ai/sdk',
        value,
        () => import('../providers/anthropic.js'),
      );
      return { model: anthropic({ apiKey, modelName: name }), modelName: name };
    }
    case 'ollama': {
      const host = baseUrl ?? io.env['OLLAMA_HOST'] ?? 'http://127.0.0.1:11434/v1';
      const { openaiChat } = await importVendor(
        'openai',
        value,
        () => import('../providers/openai.js'),
      );
      // Ollama ignores the key, but the OpenAI client requires one
      return {
        model: openaiChat({ apiKey: 'ollama', baseURL: ollamaBase(host), modelName: name }),
        modelName: name,
      };
    }
    case 'scripted':
      return { model: scriptedFileModel(resolve(io.cwd, name)) };
    default:
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Unknown model provider '${provider}'. ${HOW}`,
      );
  }
}

function requireKey(io: CliIo, variable: string, provider: string): string {
  const key = io.env[variable];
  if (key === undefined || key === '') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--model ${provider}:… needs an API key: set ${variable} (or choose another --model).`,
    );
  }
  return key;
}

function baseURL(url: string | undefined): { baseURL?: string } {
  return url === undefined ? {} : { baseURL: url };
}

/**
 * The OpenAI-compatible base URL of an Ollama server given as `OLLAMA_HOST` or `--base-url`,
 * which is often `host`, `host:port` or a URL without `/v1`: the scheme defaults to `http`,
 * the port to Ollama's 11434 (when neither a port nor a scheme is given) and `/v1` is added.
 */
export function ollamaBase(host: string): string {
  const trimmed = host.trim();
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed);
  let url: URL;
  try {
    url = new URL(hasScheme ? trimmed : `http://${trimmed}`);
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The Ollama address '${host}' is not a host, host:port or URL: set OLLAMA_HOST (or --base-url) like 127.0.0.1:11434.`,
      { cause: err },
    );
  }
  // a bare host means Ollama's port; a URL with a scheme keeps its own (80/443 by default)
  if (!hasScheme && url.port === '') url.port = '11434';
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = /\/v1$/.test(path) ? path : `${path}/v1`;
  return url.toString().replace(/\/$/, '');
}
