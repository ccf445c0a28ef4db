#include <catch2/catch.hpp>
#include "../src/parse.h"

TEST_CASE("ports parse", "[parse]") {
	REQUIRE(parse_port("80") == 80);
	CHECK(parse_port("8080") == 8080);
}

TEST_CASE("ports are bounded", "[parse]") {
	CHECK_THROWS(parse_port("65536"));
	REQUIRE(parse_port("0") == 0);
}
