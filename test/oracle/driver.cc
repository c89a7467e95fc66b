// Oracle driver around google/robotstxt robots.cc (unmodified).
// stdin: a stream of records:
//   "B <n>\n" followed by n raw bytes         -> sets current robots.txt body
//   "C <ualen> <urllen>\n" then ua bytes, url bytes -> one check
// stdout: per C record: "<allowed 1|0> <matching_line>\n"
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "robots.h"

static bool ReadHeader(std::string* h) {
  h->clear();
  int c;
  while ((c = getchar_unlocked()) != EOF) {
    if (c == '\n') return true;
    h->push_back((char)c);
  }
  return !h->empty();
}
static bool ReadN(size_t n, std::string* out) {
  out->resize(n);
  return n == 0 || fread(&(*out)[0], 1, n, stdin) == n;
}

int main() {
  std::string header, body, ua, url;
  std::vector<char> obuf(1 << 20);
  setvbuf(stdout, obuf.data(), _IOFBF, obuf.size());
  while (ReadHeader(&header)) {
    if (header.empty()) continue;
    if (header[0] == 'B') {
      size_t n = strtoull(header.c_str() + 2, nullptr, 10);
      if (!ReadN(n, &body)) { fprintf(stderr, "short body\n"); return 2; }
    } else if (header[0] == 'C') {
      char* p;
      size_t a = strtoull(header.c_str() + 2, &p, 10);
      size_t b = strtoull(p, nullptr, 10);
      if (!ReadN(a, &ua) || !ReadN(b, &url)) { fprintf(stderr, "short check\n"); return 2; }
      googlebot::RobotsMatcher matcher;
      bool allowed = matcher.OneAgentAllowedByRobots(body, ua, url);
      printf("%d %d\n", allowed ? 1 : 0, matcher.matching_line());
    } else if (header[0] == 'F') {
      fflush(stdout);
    } else {
      fprintf(stderr, "bad header: %s\n", header.c_str());
      return 2;
    }
  }
  fflush(stdout);
  return 0;
}
