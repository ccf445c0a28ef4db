int helper(int x) {
	return x - 1;
}

int write_all(void) {
	return 0;
}
