function normalise(s: string): string {
  return s.trim();
}

function reverse(s: string): string {
  return s.split("").reverse().join("");
}

export function isPalindrome(phrase: string): boolean {
  const s = normalise(phrase);
  return s === reverse(s);
}

export function sortKey(word: string): string {
  return normalise(word).toLowerCase();
}
