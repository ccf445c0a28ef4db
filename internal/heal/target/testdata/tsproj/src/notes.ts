// parse returns the names of the notes in text.
export function parse(text: string): string[] {
  return parseComment(text.split(" "));
}

function parseComment(words: string[]): string[] {
  return words.map((w) => parseNote(w));
}

function parseNote(word: string): string {
  return word.toUpperCase();
}

// format is called by nothing a test of parse reaches.
export function format(names: string[]): string {
  return names.join(",");
}
