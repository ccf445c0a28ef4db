#pragma once
#include <vector>

class Stack {
public:
	void push(int v);
	int pop();
	std::size_t size() const { return data_.size(); }

private:
	std::vector<int> data_;
};
