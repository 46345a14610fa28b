/**
 * Patches to the official MCP client (`@modelcontextprotocol/client` 2.4.0) that
 * `bench/upstream-gain.ts` measures: each is a set of exact edits to one built file of the
 * client's `dist/` (applied to a copy, never to node_modules), with the change it stands for
 * in the client's TypeScript sources described in prose. docs/performance.md ("The official
 * client's share") gives each one's source-level diff and measured gain.
 */
import { js } from './built-code.js';

/** One exact edit: `find` must occur exactly once in the file (after earlier edits). */
export interface DistEdit {
  readonly find: string;
  readonly replace: string;
}

/** A patch to one built file of the official client. */
export interface UpstreamPatch {
  /** Short id, used on the command line (`--only=id,id`) and in the output. */
  readonly id: string;
  /** One line: what the patch changes. */
  readonly title: string;
  /** The built file, as a glob (`*` only) relative to the client's `dist/`: one file must match. */
  readonly file: string;
  /** Applied in order. */
  readonly edits: readonly DistEdit[];
  /** The equivalent change to the client's TypeScript sources, in prose. */
  readonly source: string;
}

const resultValidatorCache: UpstreamPatch = {
  id: 'result-validator',
  title:
    'build the result validator of a method once per era codec, not by a failing parse per request',
  file: 'src-*.mjs',
  edits: [
    {
      find: js`
function codecResultValidator(codec, method) {
  const probe = codec.validateResult(method, void 0);
`,
      replace: js`
const codecResultValidators = /* @__PURE__ */ new WeakMap();
function codecResultValidator(codec, method) {
  let byMethod = codecResultValidators.get(codec);
  if (byMethod === void 0) {
    byMethod = /* @__PURE__ */ new Map();
    codecResultValidators.set(codec, byMethod);
  }
  let validator = byMethod.get(method);
  if (validator === void 0) {
    validator = buildCodecResultValidator(codec, method);
    if (validator !== void 0) byMethod.set(method, validator);
  }
  return validator;
}
function buildCodecResultValidator(codec, method) {
  const probe = codec.validateResult(method, void 0);
`,
    },
  ],
  source:
    'core-internal src/shared/protocol.ts: `codecResultValidator` memoizes its Standard Schema ' +
    'adapter per codec (WeakMap) and method; only methods with a result entry are cached, so ' +
    'the map is bounded by the era registries. The probe (`validateResult(method, undefined)`, ' +
    'a zod parse that fails and formats its ZodError) then runs once per method and codec ' +
    'instead of on every request. (Better still: a `hasResultMethod` on the WireCodec contract.)',
};

const callToolSendOptions: UpstreamPatch = {
  id: 'send-options',
  title: '`callTool` awaits `buildSendOptions()` only when header mirroring is active',
  file: 'public-*.mjs',
  edits: [
    {
      find: js`
    let result;
    try {
      result = await this.request({
        method: "tools/call",
        params
      }, await buildSendOptions());
`,
      replace: js`
    let result;
    try {
      result = await this.request({
        method: "tools/call",
        params
      }, mirroringActive ? await buildSendOptions() : options);
`,
    },
  ],
  source:
    'client src/client/client.ts `callTool`: pass `options` as is when `mirroringActive` is ' +
    'false (legacy era, or a browser) instead of awaiting the async `buildSendOptions()`, ' +
    'which returns `options` unchanged in that case: one promise and its microtask hops less.',
};

const outputValidatorSync: UpstreamPatch = {
  id: 'output-validator',
  title: "`callTool`'s output-validator lookup does not `await` a store that answers synchronously",
  file: 'public-*.mjs',
  edits: [
    {
      find: js`
  async _probe(method, params) {
`,
      replace: js`
  _probeNow(method, params) {
    const key = {
      method,
      params: params ?? ""
    };
    const ownPartition = this._partitionFor("private");
    const own = this._store.get({
      ...key,
      partition: ownPartition
    });
    if (typeof own?.then === "function") return Promise.resolve(own).then((found) => found !== void 0 ? found : this._probeShared(key, ownPartition));
    return own !== void 0 ? own : this._probeShared(key, ownPartition);
  }
  _probeShared(key, ownPartition) {
    const sharedPartition = this._partitionFor("public");
    if (sharedPartition === ownPartition) return void 0;
    const shared = this._store.get({
      ...key,
      partition: sharedPartition
    });
    const publicOnly = (found) => found?.scope === "public" ? found : void 0;
    return typeof shared?.then === "function" ? Promise.resolve(shared).then(publicOnly) : publicOnly(shared);
  }
  async _probe(method, params) {
`,
    },
    {
      find: js`
  async outputValidator(name, compile) {
    const entry = await this._probe("tools/list");
`,
      replace: js`
  outputValidator(name, compile) {
    try {
      const entry = this._probeNow("tools/list");
      if (typeof entry?.then === "function") return entry.then((held) => this._outputValidatorOf(held, name, compile));
      return this._outputValidatorOf(entry, name, compile);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  _outputValidatorOf(entry, name, compile) {
`,
    },
    {
      find: js`
    let compiled = options?.toolDefinition === void 0 ? await this._cache.outputValidator(params.name, (tool) => this._compileOutputValidator(tool)).catch((error) => void this._reportStoreError(error)) : this._compileOutputValidator(options.toolDefinition);
`,
      replace: js`
    let compiled;
    if (options?.toolDefinition !== void 0) compiled = this._compileOutputValidator(options.toolDefinition);
    else {
      const held = this._cache.outputValidator(params.name, (tool) => this._compileOutputValidator(tool));
      compiled = typeof held?.then === "function" ? await held.catch((error) => void this._reportStoreError(error)) : held;
    }
`,
    },
    {
      find: js`
      compiled = await this._cache.outputValidator(params.name, (tool) => this._compileOutputValidator(tool)).catch((error_) => void this._reportStoreError(error_));
`,
      replace: js`
      compiled = await Promise.resolve(this._cache.outputValidator(params.name, (tool) => this._compileOutputValidator(tool))).catch((error_) => void this._reportStoreError(error_));
`,
    },
  ],
  source:
    'client src/client/responseCache.ts: `ClientResponseCache.outputValidator` returns ' +
    '`MaybePromise<V | undefined>`; its two-partition probe (`_probeNow`) goes on without ' +
    '`await` while `store.get` returns a value (the built-in `InMemoryResponseCacheStore` ' +
    'always does; the store contract is `MaybePromise`) and chains on the promise when it ' +
    'returns one. client.ts `callTool` awaits the lookup only when it is a promise. Applies ' +
    'when the caller passes no `toolDefinition`.',
};

const partitionMemo: UpstreamPatch = {
  id: 'partition-memo',
  title: 'the response cache builds its partition keys once per server identity, not per lookup',
  file: 'public-*.mjs',
  edits: [
    {
      find: js`
  _partitionFor(scope) {
    return JSON.stringify([this._serverIdentity, scope === "public" ? "" : this._cachePartition]);
  }
`,
      replace: js`
  _partitionFor(scope) {
    let memo = this._partitionMemo;
    if (memo === void 0 || memo.identity !== this._serverIdentity) {
      memo = {
        identity: this._serverIdentity,
        own: JSON.stringify([this._serverIdentity, this._cachePartition]),
        shared: JSON.stringify([this._serverIdentity, ""])
      };
      this._partitionMemo = memo;
    }
    return scope === "public" ? memo.shared : memo.own;
  }
`,
    },
  ],
  source:
    'client src/client/responseCache.ts `ClientResponseCache._partitionFor`: keep the two ' +
    'partition strings (`JSON.stringify([serverIdentity, principal])` and the shared one) ' +
    'with the server identity they were built for, and rebuild them only when ' +
    '`setServerIdentity` changed it (`cachePartition` is fixed at construction). Every ' +
    'lookup built them anew: two `JSON.stringify` per `callTool` without `toolDefinition`.',
};

const syncResultValidation: UpstreamPatch = {
  id: 'sync-validate',
  title: 'validate a result synchronously when the schema answers synchronously',
  file: 'src-*.mjs',
  edits: [
    {
      find: js`
        const result = decoded.result;
        validateStandardSchema(resultSchema, result).then((parseResult) => {
          if (parseResult.success) resolve(parseResult.data);
          else reject(new SdkError(SdkErrorCode.InvalidResult, \`Invalid result for \${request.method}: \${parseResult.error}\`));
        }, reject);
`,
      replace: js`
        const result = decoded.result;
        let outcome;
        try {
          outcome = resultSchema["~standard"].validate(result);
        } catch (error) {
          return reject(error);
        }
        const settle = (checked) => {
          let message;
          try {
            if (checked.issues && checked.issues.length > 0) message = checked.issues.map((i) => formatIssue(i)).join(", ");
          } catch (error) {
            return reject(error);
          }
          if (message === void 0) resolve(checked.value);
          else reject(new SdkError(SdkErrorCode.InvalidResult, \`Invalid result for \${request.method}: \${message}\`));
        };
        if (typeof outcome?.then === "function") outcome.then(settle, reject);
        else settle(outcome);
`,
    },
  ],
  source:
    'core-internal src/shared/protocol.ts `_requestWithSchemaViaCodec`: call ' +
    "`resultSchema['~standard'].validate(result)` and settle at once when it returns a value, " +
    'falling back to `.then` only for a promise (Standard Schema allows both); ' +
    '`validateStandardSchema` always `await`s. Same messages (`formatIssue`, joined with ", ").',
};

const requestSettleCleanup: UpstreamPatch = {
  id: 'no-finally',
  title: "a request's cleanup runs when it settles, not in a `.finally()` promise after it",
  file: 'src-*.mjs',
  edits: [
    {
      find: js`
    let cleanupMessageId;
    return new Promise((resolve, reject) => {
      const earlyReject = (error) => {
`,
      replace: js`
    let cleanupMessageId;
    return new Promise((settleResolve, settleReject) => {
      const cleanup = () => {
        if (onAbort) options?.signal?.removeEventListener("abort", onAbort);
        if (cleanupMessageId !== void 0) {
          this._responseHandlers.delete(cleanupMessageId);
          this._cleanupTimeout(cleanupMessageId);
        }
      };
      const resolve = (value) => {
        cleanup();
        settleResolve(value);
      };
      const reject = (error) => {
        cleanup();
        settleReject(error);
      };
      try {
      const earlyReject = (error) => {
`,
    },
    {
      find: js`
    }).finally(() => {
      if (onAbort) options?.signal?.removeEventListener("abort", onAbort);
      if (cleanupMessageId !== void 0) {
        this._responseHandlers.delete(cleanupMessageId);
        this._cleanupTimeout(cleanupMessageId);
      }
    });
`,
      replace: js`
      } catch (error) {
        reject(error);
      }
    });
`,
    },
  ],
  source:
    'core-internal src/shared/protocol.ts `_requestWithSchemaViaCodec`: wrap `resolve` and ' +
    '`reject` so that each runs the cleanup (abort listener, response handler, timeout) first, ' +
    'and turn a throw in the executor into `reject` (the executor body in `try`); the returned ' +
    'promise is the `new Promise` itself, without the `.finally()` that added a promise and ' +
    'two microtask hops to every request.',
};

const timeoutSweep: UpstreamPatch = {
  id: 'timeout-sweep',
  title: 'one deadline timer per client instead of a `setTimeout`/`clearTimeout` per request',
  file: 'src-*.mjs',
  edits: [
    {
      find: js`
  _timeoutInfo = /* @__PURE__ */ new Map();
`,
      replace: js`
  _timeoutInfo = /* @__PURE__ */ new Map();
  _timeoutSweep = void 0;
`,
    },
    {
      find: js`
  _setupTimeout(messageId, timeout, maxTotalTimeout, onTimeout, resetTimeoutOnProgress = false) {
    this._timeoutInfo.set(messageId, {
      timeoutId: setTimeout(onTimeout, timeout),
      startTime: Date.now(),
      timeout,
      maxTotalTimeout,
      resetTimeoutOnProgress,
      onTimeout
    });
  }
`,
      replace: js`
  _setupTimeout(messageId, timeout, maxTotalTimeout, onTimeout, resetTimeoutOnProgress = false) {
    const startTime = Date.now();
    const info = {
      deadline: startTime + timeout,
      fired: false,
      startTime,
      timeout,
      maxTotalTimeout,
      resetTimeoutOnProgress,
      onTimeout
    };
    this._timeoutInfo.set(messageId, info);
    this._armTimeoutSweep(info.deadline);
  }
  _armTimeoutSweep(deadline) {
    const sweep = this._timeoutSweep;
    if (sweep !== void 0) {
      if (sweep.at <= deadline) {
        if (sweep.timer.hasRef?.() === false) sweep.timer.ref();
        return;
      }
      clearTimeout(sweep.timer);
    }
    const timer = setTimeout(() => this._sweepTimeouts(), Math.max(0, deadline - Date.now()));
    this._timeoutSweep = {
      timer,
      at: deadline
    };
  }
  _sweepTimeouts() {
    this._timeoutSweep = void 0;
    const now = Date.now();
    const expired = [];
    let next;
    for (const info of this._timeoutInfo.values()) {
      if (info.fired) continue;
      if (info.deadline <= now) {
        info.fired = true;
        expired.push(info.onTimeout);
      } else if (next === void 0 || info.deadline < next) next = info.deadline;
    }
    if (next !== void 0) this._armTimeoutSweep(next);
    for (const onTimeout of expired) try {
      onTimeout();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
`,
    },
    {
      find: js`
    clearTimeout(info.timeoutId);
    info.timeoutId = setTimeout(info.onTimeout, info.timeout);
    return true;
  }
  _cleanupTimeout(messageId) {
    const info = this._timeoutInfo.get(messageId);
    if (info) {
      clearTimeout(info.timeoutId);
      this._timeoutInfo.delete(messageId);
    }
  }
`,
      replace: js`
    info.deadline = Date.now() + info.timeout;
    info.fired = false;
    this._armTimeoutSweep(info.deadline);
    return true;
  }
  _cleanupTimeout(messageId) {
    if (this._timeoutInfo.delete(messageId) && this._timeoutInfo.size === 0) this._timeoutSweep?.timer.unref?.();
  }
`,
    },
    {
      find: js`
    for (const info of this._timeoutInfo.values()) clearTimeout(info.timeoutId);
`,
      replace: js`
    if (this._timeoutSweep !== void 0) {
      clearTimeout(this._timeoutSweep.timer);
      this._timeoutSweep = void 0;
    }
`,
    },
  ],
  source:
    'core-internal src/shared/protocol.ts: `_timeoutInfo` entries hold a deadline instead of ' +
    'a timer; one timer per `Protocol` (`_timeoutSweep`) is armed for the earliest deadline, ' +
    'fires the expired entries and re-arms for the next. It is unref-ed while no request is ' +
    'pending (a pending request keeps the process alive, as its own timer did) and cleared on ' +
    'close. `_resetTimeout` moves the deadline. One difference: when `maxTotalTimeout` ends a ' +
    'request, its entry goes without leaving an armed timer behind (today the timer stays ' +
    'armed, keeping the process alive, until it fires and finds the request settled).',
};

const dispatchGuardOnce: UpstreamPatch = {
  id: 'guard-once',
  title: 'a result response is checked against `JSONRPCResultResponseSchema` once, not twice',
  file: 'src-*.mjs',
  edits: [
    {
      find: js`
  _responseHandlers = /* @__PURE__ */ new Map();
  _progressHandlers = /* @__PURE__ */ new Map();
`,
      replace: js`
  _responseHandlers = /* @__PURE__ */ new Map();
  _checkedResultResponses = /* @__PURE__ */ new WeakSet();
  _progressHandlers = /* @__PURE__ */ new Map();
`,
    },
    {
      find: js`
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this._onresponse(message);
`,
      replace: js`
      if (isJSONRPCResultResponse(message)) {
        this._checkedResultResponses.add(message);
        this._onresponse(message);
      } else if (isJSONRPCErrorResponse(message)) this._onresponse(message);
`,
    },
    {
      find: js`
    if (isJSONRPCResultResponse(response)) handler(response);
`,
      replace: js`
    if (this._checkedResultResponses.has(response) || isJSONRPCResultResponse(response)) handler(response);
`,
    },
  ],
  source:
    "core-internal src/shared/protocol.ts: `connect()`'s `onmessage` remembers (WeakSet) the " +
    'messages it found to be result responses, and `_onresponse` trusts that instead of running ' +
    '`isJSONRPCResultResponse` (a full `safeParse`) a second time; a response handed to ' +
    '`_onresponse` any other way is still checked.',
};

const stdioPlainResult: UpstreamPatch = {
  id: 'plain-result',
  title: '`deserializeMessage` takes a plain result response as `JSON.parse` returns it',
  file: 'src-*.mjs',
  edits: [
    {
      find: js`
function deserializeMessage(line) {
  return JSONRPCMessageSchema.parse(JSON.parse(line));
}
`,
      replace: js`
const PLAIN_RESULT_KEYS = /* @__PURE__ */ new Set([
  "jsonrpc",
  "id",
  "result"
]);
function isPlainJsonObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function isPlainResultResponse(value) {
  if (!isPlainJsonObject(value) || value.jsonrpc !== "2.0") return false;
  const { id, result } = value;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  if (!isPlainJsonObject(result) || Object.hasOwn(result, "_meta") || Object.hasOwn(result, "__proto__")) return false;
  let keys = 0;
  for (const key in value) {
    if (!PLAIN_RESULT_KEYS.has(key)) return false;
    keys++;
  }
  return keys === 3;
}
function deserializeMessage(line) {
  const parsed = JSON.parse(line);
  if (isPlainResultResponse(parsed)) return parsed;
  return JSONRPCMessageSchema.parse(parsed);
}
`,
    },
  ],
  source:
    'core-internal src/shared/stdio.ts `deserializeMessage`: a line that is exactly ' +
    '`{jsonrpc: "2.0", id: string | safe integer, result: object}` with no `_meta` (whose ' +
    'serverInfo entry the schema may rewrite) and no `__proto__` key in the result is returned ' +
    'as parsed, since `JSONRPCMessageSchema` would return an equal value; everything else is ' +
    'parsed by the schema as today. (Muster does the same in its own stdio transport, so this ' +
    "one changes only the raw client's figures.)",
};

/** The patches, in the order they are applied when measured together. */
export const UPSTREAM_PATCHES: readonly UpstreamPatch[] = Object.freeze([
  resultValidatorCache,
  callToolSendOptions,
  outputValidatorSync,
  partitionMemo,
  syncResultValidation,
  requestSettleCleanup,
  timeoutSweep,
  dispatchGuardOnce,
  stdioPlainResult,
]);
