/**
 * An RFC 9651 (Structured Field Values) Dictionary, parsed as §4.2.2 says, for the preference of
 * a Content-Usage line (draft-ietf-aipref-vocab-08 §6: "those bytes are parsed into a
 * Dictionary"). Only what a preference needs is kept: each key's last value, as a Token's text
 * or as "some other type"; parameters are parsed (a malformed one fails the whole Dictionary)
 * and dropped (vocab-08 §6.5.2). Any failure gives null: every preference is then unknown.
 * Linear in the input: each character is looked at a bounded number of times.
 */

export type DictionaryValue = { type: 'token'; text: string } | { type: 'other' };

export interface ParsedDictionary {
  /** Each key's value; a repeated key keeps its last (RFC 9651 §4.2.2). */
  members: Map<string, DictionaryValue>;
  /** Keys that appear more than once, in order of their second appearance. */
  repeated: string[];
}

const isLcAlpha = (c: number) => c >= 0x61 && c <= 0x7a;
const isAlpha = (c: number) => isLcAlpha(c) || (c >= 0x41 && c <= 0x5a);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const TCHAR_PUNCTUATION = "!#$%&'*+-.^_`|~";
const isTchar = (c: number) => isAlpha(c) || isDigit(c) || (c < 0x80 && TCHAR_PUNCTUATION.includes(String.fromCharCode(c)));
const isKeyChar = (c: number) => isLcAlpha(c) || isDigit(c) || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x2a;
const isBase64 = (c: number) => isAlpha(c) || isDigit(c) || c === 0x2b || c === 0x2f || c === 0x3d;
const SP = 0x20;
const HTAB = 0x09;

class Failure extends Error {}

class Input {
  pos = 0;
  constructor(readonly text: string) {}
  get done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(): number {
    return this.pos < this.text.length ? this.text.charCodeAt(this.pos) : -1;
  }
  take(): number {
    if (this.done) throw new Failure();
    return this.text.charCodeAt(this.pos++);
  }
  expect(c: number): void {
    if (this.take() !== c) throw new Failure();
  }
  skip(pred: (c: number) => boolean): void {
    while (!this.done && pred(this.peek())) this.pos++;
  }
}

/** The Dictionary in `text`, or null when it does not parse. */
export function parseStructuredDictionary(text: string): ParsedDictionary | null {
  const input = new Input(text);
  try {
    input.skip((c) => c === SP);
    const parsed = dictionary(input);
    input.skip((c) => c === SP);
    return input.done ? parsed : null;
  } catch (e) {
    if (e instanceof Failure) return null;
    throw e;
  }
}

function dictionary(input: Input): ParsedDictionary {
  const members = new Map<string, DictionaryValue>();
  const repeated: string[] = [];
  while (!input.done) {
    const key = parseKey(input);
    let value: DictionaryValue;
    if (input.peek() === 0x3d) {
      input.pos++;
      value = itemOrInnerList(input);
    } else {
      // A key alone is the Boolean true, with parameters.
      parameters(input);
      value = { type: 'other' };
    }
    if (members.has(key)) {
      members.delete(key);
      if (!repeated.includes(key)) repeated.push(key);
    }
    members.set(key, value);
    input.skip((c) => c === SP || c === HTAB);
    if (input.done) break;
    input.expect(0x2c);
    input.skip((c) => c === SP || c === HTAB);
    // A trailing comma fails the Dictionary.
    if (input.done) throw new Failure();
  }
  return { members, repeated };
}

function parseKey(input: Input): string {
  const first = input.peek();
  if (!isLcAlpha(first) && first !== 0x2a) throw new Failure();
  const start = input.pos;
  input.skip(isKeyChar);
  return input.text.slice(start, input.pos);
}

function itemOrInnerList(input: Input): DictionaryValue {
  if (input.peek() !== 0x28) return item(input);
  input.pos++;
  for (;;) {
    input.skip((c) => c === SP);
    if (input.peek() === 0x29) {
      input.pos++;
      parameters(input);
      return { type: 'other' };
    }
    item(input);
    const next = input.peek();
    if (next !== SP && next !== 0x29) throw new Failure();
  }
}

function item(input: Input): DictionaryValue {
  const value = bareItem(input);
  parameters(input);
  return value;
}

function parameters(input: Input): void {
  while (input.peek() === 0x3b) {
    input.pos++;
    input.skip((c) => c === SP);
    parseKey(input);
    if (input.peek() === 0x3d) {
      input.pos++;
      bareItem(input);
    }
  }
}

function bareItem(input: Input): DictionaryValue {
  const c = input.peek();
  if (c === 0x2d || isDigit(c)) numberItem(input);
  else if (c === 0x22) stringItem(input);
  else if (isAlpha(c) || c === 0x2a) return { type: 'token', text: tokenItem(input) };
  else if (c === 0x3a) byteSequence(input);
  else if (c === 0x3f) booleanItem(input);
  else if (c === 0x40) {
    input.pos++;
    if (numberItem(input)) throw new Failure();
  } else if (c === 0x25) displayString(input);
  else throw new Failure();
  return { type: 'other' };
}

/** An Integer or Decimal (RFC 9651 §4.2.4); true for a Decimal. */
function numberItem(input: Input): boolean {
  if (input.peek() === 0x2d) input.pos++;
  if (!isDigit(input.peek())) throw new Failure();
  let digits = 0;
  let fraction = -1;
  while (!input.done) {
    const c = input.peek();
    if (isDigit(c)) {
      if (fraction >= 0) fraction++;
      else digits++;
    } else if (c === 0x2e && fraction < 0) {
      if (digits > 12) throw new Failure();
      fraction = 0;
    } else break;
    input.pos++;
    if (fraction < 0 ? digits > 15 : fraction > 3) throw new Failure();
  }
  if (fraction === 0) throw new Failure();
  return fraction > 0;
}

function stringItem(input: Input): void {
  input.expect(0x22);
  for (;;) {
    const c = input.take();
    if (c === 0x5c) {
      const escaped = input.take();
      if (escaped !== 0x22 && escaped !== 0x5c) throw new Failure();
    } else if (c === 0x22) return;
    else if (c < 0x20 || c > 0x7e) throw new Failure();
  }
}

function tokenItem(input: Input): string {
  const start = input.pos++;
  input.skip((c) => isTchar(c) || c === 0x3a || c === 0x2f);
  return input.text.slice(start, input.pos);
}

function byteSequence(input: Input): void {
  input.expect(0x3a);
  input.skip(isBase64);
  input.expect(0x3a);
}

function booleanItem(input: Input): void {
  input.expect(0x3f);
  const c = input.take();
  if (c !== 0x30 && c !== 0x31) throw new Failure();
}

function displayString(input: Input): void {
  input.expect(0x25);
  input.expect(0x22);
  for (;;) {
    const c = input.take();
    if (c === 0x22) return;
    if (c < 0x20 || c > 0x7e) throw new Failure();
    if (c === 0x25) {
      for (let i = 0; i < 2; i++) {
        const h = input.take();
        if (!isDigit(h) && !(h >= 0x61 && h <= 0x66)) throw new Failure();
      }
    }
  }
}
