let y = 2;
export default z;
