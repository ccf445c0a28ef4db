package words

import "testing"

func TestIsPalindrome(t *testing.T) {
	if !IsPalindrome("Never odd or even") {
		t.Error("IsPalindrome = false")
	}
}
