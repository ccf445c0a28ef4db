interface User {
  name: string;
  age: number;
}

export function label(u: User): string {
  return u.name + " " + u.agee;
}

export function make(): User {
  return { name: "x" };
}
