declare module 'fs' { export function readFileSync(p: string): string; }
