#include <cstdio>
#include <string>

struct Entry {
	std::string key;
	int hits = 0;
};

static Entry *make_entry(const char *k) {
	return new Entry{k, 0};
}

static int touch(Entry *e) {
	e->hits++;
	return e->hits;
}

int main() {
	Entry *e = make_entry("a");
	touch(e);
	delete e;
	std::printf("%d\n", touch(e));
	return 0;
}
