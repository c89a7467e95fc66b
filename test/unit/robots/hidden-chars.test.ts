import { describe, expect, it } from 'vitest';
import { codePointLabel, hasHiddenChars, hiddenCharOf, hiddenCharsIn, revealHiddenChars, segmentHiddenChars } from '../../../src/robots/hidden-chars.js';
import { hiddenCharsNote, terminalText } from '../../../src/reports/terminal-text.js';

describe('hidden characters (house style, habit 13)', () => {
  it.each([
    ['RLO makes toBTPG read GPTBot', 'User-agent: \u202etoBTPG', 'User-agent: <U+202E>toBTPG'],
    ['RLO in a path', '/\u202egnp.exe', '/<U+202E>gnp.exe'],
    ['ESC sequence that would set the window title', '\u001b]0;owned\u0007x', '<U+001B>]0;owned<U+0007>x'],
    ['clear screen', '\u001b[2J', '<U+001B>[2J'],
    ['carriage return overwrites the line', 'Allow: /\rDisallow: /', 'Allow: /<U+000D>Disallow: /'],
    ['zero-width space inside a token', 'GPT\u200bBot', 'GPT<U+200B>Bot'],
    ['BOM in the middle', 'a\ufeffb', 'a<U+FEFF>b'],
    ['C1 CSI', 'a\u009b2Jb', 'a<U+009B>2Jb'],
    ['DEL', 'a\u007fb', 'a<U+007F>b'],
    ['tag characters (astral)', 'x\u{E0041}\u{E007F}', 'x<U+E0041><U+E007F>'],
    ['isolates', '\u2066a\u2069', '<U+2066>a<U+2069>'],
    ['tab and line feed are layout', 'a\tb\nc', 'a\tb\nc'],
    ['plain text and other scripts stay as they are', 'Disallow: /ünïcödé/日本', 'Disallow: /ünïcödé/日本'],
    ['emoji stay as they are', 'Disallow: /🤖', 'Disallow: /🤖'],
  ])('%s', (_name, input, shown) => {
    expect(revealHiddenChars(input)).toBe(shown);
    expect(terminalText(input)).toBe(shown);
  });

  it('every code point the fast pattern finds has a name, and every named one is found (0 to U+10FFFF)', () => {
    const disagree: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (hasHiddenChars(String.fromCodePoint(cp)) !== (hiddenCharOf(cp) !== null)) disagree.push(codePointLabel(cp));
    }
    expect(disagree).toEqual([]);
  });

  it('segments text and hidden characters in order', () => {
    expect(segmentHiddenChars('a\u202eb')).toEqual([
      { kind: 'text', text: 'a' },
      { kind: 'hidden', char: { codePoint: 0x202e, kind: 'bidi', name: 'RIGHT-TO-LEFT OVERRIDE' } },
      { kind: 'text', text: 'b' },
    ]);
    expect(segmentHiddenChars('')).toEqual([]);
    expect(hiddenCharsIn('\u202ea\u202eb\u0007').map((c) => c.codePoint)).toEqual([0x202e, 0x07]);
  });

  it('in colour, markers are in reverse video and the output holds no other control byte', () => {
    const out = terminalText('\u001b]0;x\u0007', { color: true });
    expect(out).toBe('\u001b[7m<U+001B>\u001b[27m]0;x\u001b[7m<U+0007>\u001b[27m');
    // eslint-disable-next-line no-control-regex -- the test looks for control bytes
    expect(out.replace(/\u001b\[2?7m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('a note names the hidden characters found, none when the text is clean', () => {
    expect(hiddenCharsNote(['clean', 'text'])).toBeNull();
    expect(hiddenCharsNote(['a\u202e', 'b\u0007', 'c\u202e'])).toBe(
      'note: the site\'s text holds hidden or control characters, shown as <U+XXXX> and never written as they are: U+202E RIGHT-TO-LEFT OVERRIDE, U+0007 BELL',
    );
  });
});
