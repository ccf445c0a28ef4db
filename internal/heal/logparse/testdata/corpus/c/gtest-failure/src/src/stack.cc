#include "stack.h"

void Stack::push(int v) { data_.push_back(v); }

int Stack::pop() {
	int v = data_.front();
	data_.pop_back();
	return v;
}
