export { resolveOutput } from './output-spec.js';
export type {
  OutputOption,
  OutputRequest,
  OutputSchema,
  OutputSpec,
  OutputValue,
  AnswerReading,
} from './output-spec.js';
export { repairInstruction, outputInvalidError, readCommittedAnswer } from './final-answer.js';
export { strictForm } from './strict-form.js';
export { restoreAnswer } from './strict-restore.js';
export type { StrictForm } from './strict-form.js';
