/** slugify lower-cases text and joins its words with dashes. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0)
    .join("-");
}
