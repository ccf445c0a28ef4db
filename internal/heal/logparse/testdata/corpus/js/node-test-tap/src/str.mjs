export const slug = (s) => s.toLowerCase().replace(' ', '_');
