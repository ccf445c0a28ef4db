type Config = { port: number };

export const cfg: Config = { port: "8080" };
