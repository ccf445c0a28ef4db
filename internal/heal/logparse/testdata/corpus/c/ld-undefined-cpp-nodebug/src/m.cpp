#include <string>
std::string greet(const std::string &n);
int main() {
  return (int)greet("x").size();
}
