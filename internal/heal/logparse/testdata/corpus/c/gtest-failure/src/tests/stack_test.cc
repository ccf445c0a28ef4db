#include <gtest/gtest.h>
#include "stack.h"

TEST(StackTest, PushGrows) {
	Stack s;
	s.push(1);
	EXPECT_EQ(s.size(), 1u);
}

TEST(StackTest, PopReturnsLast) {
	Stack s;
	s.push(1);
	s.push(2);
	EXPECT_EQ(s.pop(), 2);
	ASSERT_EQ(s.size(), 1u);
}

TEST(StackTest, PopEmptiesStack) {
	Stack s;
	s.push(7);
	s.pop();
	EXPECT_TRUE(s.size() == 0) << "stack not empty";
	EXPECT_EQ(s.size(), 1u) << "size after pop";
}
