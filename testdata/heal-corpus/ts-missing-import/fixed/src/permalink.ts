import { slugify } from "./slugify";

export interface Post {
  id: number;
  title: string;
  published: Date;
}

/** permalink builds /yyyy/mm/slug-id for a post. */
export function permalink(post: Post): string {
  const y = post.published.getUTCFullYear();
  const m = String(post.published.getUTCMonth() + 1).padStart(2, "0");
  return `/${y}/${m}/${slugify(post.title)}-${post.id}`;
}
