export { resolveOutput } from './output-spec.js';
export type {
  OutputOption,
  OutputRequest,
  OutputSchema,
  OutputSpec,
  OutputValue,
  AnswerReading,
} from './output-spec.js';
export { repairInstruction, outputInvalidError } from './final-answer.js';
export { strictForm, restoreAnswer } from './strict-form.js';
export type { StrictForm } from './strict-form.js';
