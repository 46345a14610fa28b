/** A fenced code block: its info string, its body, and the lines of its fences (0-based). */
export interface CodeBlock {
  readonly info: string;
  readonly body: string;
  readonly open: number;
  readonly close: number;
}
/** The fenced code blocks of a Markdown text. */
export function codeBlocks(markdown: string): CodeBlock[];
/** `{ file, region? }` of an info string with `file=`, else undefined. */
export function embedding(info: string): { file: string; region?: string } | undefined;
/** Whether an info string marks its block as a fragment. */
export function isFragment(info: string): boolean;
/** What an embedded block must hold: the file, or one region of it. */
export function embeddedText(root: string, file: string, region?: string): string;
/** The code blocks of a Markdown file that are neither embedded as they should be nor fragments. */
export function blockProblems(root: string, path: string): string[];
/** The Markdown text with every embedded block rewritten from its file. */
export function embedAll(root: string, markdown: string): string;
/** The anchor GitHub gives a heading's text. */
export function slug(heading: string): string;
/** The anchors of a Markdown text's headings. */
export function anchors(markdown: string): Set<string>;
/** The link targets of a Markdown text, with their 1-based lines. */
export function linkTargets(markdown: string): { target: string; line: number }[];
/** The relative links of a Markdown file that lead to no file or anchor. */
export function brokenLinks(root: string, path: string): string[];
