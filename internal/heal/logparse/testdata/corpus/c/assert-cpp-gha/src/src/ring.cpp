#include <cassert>
#include <cstdio>
#include <vector>

namespace ring {
class Buffer {
public:
	explicit Buffer(std::size_t cap) : cap_(cap) {}
	void push(int v) {
		data_.push_back(v);
		assert(data_.size() <= cap_ && "buffer overflow");
	}

private:
	std::size_t cap_;
	std::vector<int> data_;
};
} // namespace ring

int main() {
	ring::Buffer b(2);
	for (int i = 0; i < 3; i++)
		b.push(i);
	std::puts("ok");
	return 0;
}
