const n: number = "1";
export default n;
