// SPDX-License-Identifier: MIT
// Block structure first (lines grouped into blocks, nested blocks rendered
// from the same lines with their markers cut off, as string_views into the
// message), then each paragraph, heading and cell's inline structure.
#include "daemon/ui/markdown.hpp"

#include <array>
#include <string>
#include <vector>

#include "core/util/text.hpp"

namespace origin::ui {

namespace {

using Lines = std::vector<std::string_view>;

constexpr std::size_t kMaxColumns = 64;

bool IsSpace(char c) { return c == ' ' || c == '\t'; }
bool IsBlank(std::string_view l) {
  for (char c : l)
    if (!IsSpace(c)) return false;
  return true;
}
bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

std::string_view Trim(std::string_view s) { return TrimSpace(s, " \t"); }

// Up to three spaces of indentation, as Markdown allows before a marker.
std::size_t Indent(std::string_view l) {
  std::size_t n = 0;
  while (n < l.size() && l[n] == ' ') ++n;
  return n;
}
std::string_view Unindent3(std::string_view l) {
  const std::size_t n = Indent(l);
  return n <= 3 ? l.substr(n) : std::string_view{};
}

// ---------------------------------------------------------------- inline

// Remembers, per kind of closer, that none follows a position: a search
// that failed from p fails from every later p, so each kind is searched for
// at most once past any point and the whole scan stays linear.
struct Closers {
  std::array<bool, 8> none{};       // emphasis: * ** *** _ __ ___ by kind
  std::array<bool, 17> no_code{};   // code spans, by the length of their run of `
  bool rbracket_done = false, rparen_done = false;
  std::size_t rbracket = std::string_view::npos, rparen = std::string_view::npos;
};

std::size_t RunLength(std::string_view s, std::size_t p, char c) {
  std::size_t n = p;
  while (n < s.size() && s[n] == c) ++n;
  return n - p;
}

// The closing run of exactly `len` `c`s after `from`, not after whitespace
// (and for _ not before a letter), or npos.
std::size_t FindEmphasisCloser(std::string_view s, std::size_t from, char c, std::size_t len) {
  std::size_t q = from;
  while ((q = s.find(c, q)) != std::string_view::npos) {
    const std::size_t run = RunLength(s, q, c);
    const bool after_text = q > 0 && !IsSpace(s[q - 1]) && s[q - 1] != '\n';
    const bool ok_after = c != '_' || q + run >= s.size() || !IsAlnum(s[q + run]);
    if (run == len && after_text && ok_after) return q;
    q += run;
  }
  return std::string_view::npos;
}

std::size_t FindCodeCloser(std::string_view s, std::size_t from, std::size_t len) {
  std::size_t q = from;
  while ((q = s.find('`', q)) != std::string_view::npos) {
    const std::size_t run = RunLength(s, q, '`');
    if (run == len) return q;
    q += run;
  }
  return std::string_view::npos;
}

void Inline(Html& out, std::string_view s, int depth, bool links);

void Emphasis(Html& out, std::string_view inner, std::size_t len, int depth, bool links) {
  if (len >= 2) out.Open("strong");
  if (len != 2) out.Open("em");
  if (depth >= kMaxMarkdownDepth)
    out.Text(inner);
  else
    Inline(out, inner, depth + 1, links);
  if (len != 2) out.Close("em");
  if (len >= 2) out.Close("strong");
}

// [text](url) at s[p] == '[', to an http or https URL (any other stays
// text): its parts, or end == npos.
struct LinkParts {
  std::string_view text, target;
  std::size_t end = std::string_view::npos;
};

LinkParts ParseLink(std::string_view s, std::size_t p, Closers& k) {
  if (!k.rbracket_done && (k.rbracket == std::string_view::npos || k.rbracket <= p)) {
    k.rbracket = s.find(']', p + 1);
    if (k.rbracket == std::string_view::npos) k.rbracket_done = true;
  }
  if (k.rbracket_done) return {};
  const std::size_t rb = k.rbracket;
  if (rb + 1 >= s.size() || s[rb + 1] != '(') return {};
  if (!k.rparen_done && (k.rparen == std::string_view::npos || k.rparen <= rb)) {
    k.rparen = s.find(')', rb + 2);
    if (k.rparen == std::string_view::npos) k.rparen_done = true;
  }
  if (k.rparen_done) return {};
  const std::size_t rp = k.rparen;
  std::string_view target = Trim(s.substr(rb + 2, rp - rb - 2));
  if (const std::size_t sp = target.find_first_of(" \t\n"); sp != std::string_view::npos) {
    const std::string_view title = Trim(target.substr(sp));
    if (title.size() < 2 || title.front() != '"' || title.back() != '"') return {};
    target = target.substr(0, sp);
  }
  if (target.size() >= 2 && target.front() == '<' && target.back() == '>')
    target = target.substr(1, target.size() - 2);
  if (!ExternalUrl(target)) return {};
  return {s.substr(p + 1, rb - p - 1), target, rp + 1};
}

void EmitLink(Html& out, const LinkParts& link, int depth) {
  out.Open("a", {{"href", link.target}, {"rel", "noopener noreferrer"}, {"target", "_blank"}});
  if (link.text.empty())
    out.Text(link.target);
  else if (depth >= kMaxMarkdownDepth)
    out.Text(link.text);
  else
    Inline(out, link.text, depth + 1, false);
  out.Close("a");
  if (!link.text.empty() && link.text != link.target)
    out.Open("span", {{"class", "link-url"}}).Text(" (").Text(link.target).Text(")").Close("span");
}

void Inline(Html& out, std::string_view s, int depth, bool links) {
  Closers k;
  std::size_t text_from = 0, p = 0;
  auto flush = [&](std::size_t to) {
    if (to > text_from) out.Text(s.substr(text_from, to - text_from));
  };
  while (p < s.size()) {
    const char c = s[p];
    if (c == '\\' && p + 1 < s.size() && IsPunct(s[p + 1])) {
      flush(p);
      text_from = p + 1;
      p += 2;
      continue;
    }
    if (c == '`') {
      const std::size_t run = RunLength(s, p, '`');
      std::size_t q = std::string_view::npos;
      if (run <= 16 && !k.no_code[run]) {
        q = FindCodeCloser(s, p + run, run);
        if (q == std::string_view::npos) k.no_code[run] = true;
      }
      if (q == std::string_view::npos) {
        p += run;
        continue;
      }
      flush(p);
      std::string_view code = s.substr(p + run, q - p - run);
      if (code.size() >= 2 && code.front() == ' ' && code.back() == ' ')
        code = code.substr(1, code.size() - 2);
      out.Element("code", code);
      p = text_from = q + run;
      continue;
    }
    if (c == '*' || c == '_') {
      const std::size_t run = RunLength(s, p, c);
      const bool opens = p + run < s.size() && !IsSpace(s[p + run]) && s[p + run] != '\n' &&
                         (c != '_' || p == 0 || !IsAlnum(s[p - 1]));
      const int kind = (c == '*' ? 1 : 4) + static_cast<int>(run) - 1;
      std::size_t q = std::string_view::npos;
      if (opens && run <= 3 && !k.none[kind]) {
        q = FindEmphasisCloser(s, p + run, c, run);
        if (q == std::string_view::npos) k.none[kind] = true;
      }
      if (q == std::string_view::npos) {
        p += run;
        continue;
      }
      flush(p);
      Emphasis(out, s.substr(p + run, q - p - run), run, depth, links);
      p = text_from = q + run;
      continue;
    }
    if (c == '[' && links) {
      const LinkParts link = ParseLink(s, p, k);
      if (link.end != std::string_view::npos) {
        flush(p);
        EmitLink(out, link, depth);
        p = text_from = link.end;
        continue;
      }
    }
    ++p;
  }
  flush(s.size());
}

// ---------------------------------------------------------------- blocks

struct Fence {
  char c = 0;
  std::size_t len = 0;
  std::string_view info;
};

bool OpensFence(std::string_view line, Fence* f) {
  const std::string_view l = Unindent3(line);
  if (l.size() < 3 || (l[0] != '`' && l[0] != '~')) return false;
  const std::size_t run = RunLength(l, 0, l[0]);
  if (run < 3) return false;
  const std::string_view info = Trim(l.substr(run));
  if (l[0] == '`' && info.find('`') != std::string_view::npos) return false;
  *f = {l[0], run, info};
  return true;
}

bool ClosesFence(std::string_view line, const Fence& f) {
  const std::string_view l = Unindent3(line);
  const std::size_t run = RunLength(l, 0, f.c);
  return run >= f.len && IsBlank(l.substr(run));
}

int HeadingLevel(std::string_view line, std::string_view* text) {
  const std::string_view l = Unindent3(line);
  const std::size_t n = RunLength(l, 0, '#');
  if (n == 0 || n > 6 || (n < l.size() && !IsSpace(l[n]))) return 0;
  std::string_view t = Trim(l.substr(n));
  // A closing run of #s goes.
  std::size_t e = t.size();
  while (e > 0 && t[e - 1] == '#') --e;
  if (e == 0 || IsSpace(t[e - 1])) t = Trim(t.substr(0, e));
  *text = t;
  return static_cast<int>(n);
}

bool IsBreak(std::string_view line) {
  const std::string_view l = Unindent3(line);
  if (l.empty() || (l[0] != '-' && l[0] != '*' && l[0] != '_')) return false;
  std::size_t n = 0;
  for (char c : l) {
    if (c == l[0])
      ++n;
    else if (!IsSpace(c))
      return false;
  }
  return n >= 3;
}

bool IsQuote(std::string_view line) {
  const std::string_view l = Unindent3(line);
  return !l.empty() && l[0] == '>';
}
std::string_view StripQuote(std::string_view line) {
  std::string_view l = Unindent3(line).substr(1);
  if (!l.empty() && l[0] == ' ') l.remove_prefix(1);
  return l;
}

struct Marker {
  bool ordered = false;
  char delim = 0;   // - * + or . )
  long start = 1;   // an ordered list's first number
  std::size_t content = 0;  // the column its content starts at
};

bool ListMarker(std::string_view line, Marker* m) {
  const std::size_t ind = Indent(line);
  if (ind > 3 || ind >= line.size()) return false;
  const char c = line[ind];
  std::size_t after = 0;
  if (c == '-' || c == '*' || c == '+') {
    *m = {false, c, 1, 0};
    after = ind + 1;
  } else if (c >= '0' && c <= '9') {
    std::size_t e = ind;
    long n = 0;
    while (e < line.size() && e - ind < 9 && line[e] >= '0' && line[e] <= '9') n = n * 10 + (line[e++] - '0');
    if (e >= line.size() || (line[e] != '.' && line[e] != ')')) return false;
    *m = {true, line[e], n, 0};
    after = e + 1;
  } else {
    return false;
  }
  if (after < line.size() && !IsSpace(line[after])) return false;
  std::size_t content = after;
  while (content < line.size() && IsSpace(line[content]) && content - after < 4) ++content;
  if (content == line.size()) content = after + 1;  // an empty item
  m->content = content;
  return true;
}

// A pipe table's cells: split at | not escaped, the outer pipes dropped.
std::vector<std::string_view> Cells(std::string_view line) {
  std::string_view l = Trim(line);
  if (!l.empty() && l.front() == '|') l.remove_prefix(1);
  if (!l.empty() && l.back() == '|' && (l.size() < 2 || l[l.size() - 2] != '\\')) l.remove_suffix(1);
  std::vector<std::string_view> cells;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= l.size() && cells.size() < kMaxColumns; ++i) {
    if (i == l.size() || (l[i] == '|' && (i == 0 || l[i - 1] != '\\'))) {
      cells.push_back(Trim(l.substr(from, i - from)));
      from = i + 1;
    }
  }
  return cells;
}

// The delimiter row's alignments ('l', 'c', 'r', or 0), or empty.
std::string Alignments(std::string_view line) {
  if (line.find('-') == std::string_view::npos) return {};
  std::string align;
  for (std::string_view cell : Cells(line)) {
    if (cell.empty()) return {};
    const bool left = cell.front() == ':', right = cell.back() == ':';
    std::string_view dashes = cell.substr(left ? 1 : 0);
    if (right && !dashes.empty()) dashes.remove_suffix(1);
    if (dashes.empty()) return {};
    for (char c : dashes)
      if (c != '-') return {};
    align += left && right ? 'c' : right ? 'r' : left ? 'l' : '-';
  }
  return align;
}

bool IsTableStart(const Lines& lines, std::size_t i, std::string* align) {
  if (i + 1 >= lines.size() || lines[i].find('|') == std::string_view::npos) return false;
  *align = Alignments(lines[i + 1]);
  return !align->empty() && Cells(lines[i]).size() == align->size();
}

bool StartsBlock(const Lines& lines, std::size_t i) {
  Fence f;
  std::string_view t;
  Marker m;
  const std::string_view l = lines[i];
  return OpensFence(l, &f) || HeadingLevel(l, &t) != 0 || IsBreak(l) || IsQuote(l) ||
         (ListMarker(l, &m) && !IsBlank(l.substr(std::min(m.content, l.size()))) &&
          (!m.ordered || m.start == 1));
}

void Blocks(Html& out, const Lines& lines, int depth, bool tight);

void Heading(Html& out, int level, std::string_view text) {
  // A message's headings sit under the page's own: # is an <h3>.
  switch (level) {
    case 1: out.Open("h3"); break;
    case 2: out.Open("h4"); break;
    case 3: out.Open("h5"); break;
    default: out.Open("h6"); break;
  }
  Inline(out, text, 1, true);
  switch (level) {
    case 1: out.Close("h3"); break;
    case 2: out.Close("h4"); break;
    case 3: out.Close("h5"); break;
    default: out.Close("h6"); break;
  }
}

void Table(Html& out, const Lines& lines, std::size_t& i, const std::string& align) {
  auto cell_attrs = [&](std::size_t col) -> std::vector<Attr> {
    const char a = col < align.size() ? align[col] : '-';
    if (a == 'c') return {{"class", "al-c"}};
    if (a == 'r') return {{"class", "al-r"}};
    return {};
  };
  out.Open("div", {{"class", "table-wrap"}}).Open("table").Open("thead").Open("tr");
  const std::vector<std::string_view> head = Cells(lines[i]);
  for (std::size_t c = 0; c < align.size(); ++c) {
    out.Open("th", cell_attrs(c));
    Inline(out, c < head.size() ? head[c] : std::string_view{}, 1, true);
    out.Close("th");
  }
  out.Close("tr").Close("thead").Open("tbody");
  i += 2;
  while (i < lines.size() && !IsBlank(lines[i]) && lines[i].find('|') != std::string_view::npos) {
    const std::vector<std::string_view> row = Cells(lines[i]);
    out.Open("tr");
    for (std::size_t c = 0; c < align.size(); ++c) {
      out.Open("td", cell_attrs(c));
      Inline(out, c < row.size() ? row[c] : std::string_view{}, 1, true);
      out.Close("td");
    }
    out.Close("tr");
    ++i;
  }
  out.Close("tbody").Close("table").Close("div");
}

void List(Html& out, const Lines& lines, std::size_t& i, const Marker& first, int depth) {
  if (first.ordered) {
    const std::string start = std::to_string(first.start);
    out.Open("ol", {{"start", start, first.start != 1}});
  } else {
    out.Open("ul");
  }
  Marker m = first;
  while (true) {
    // The item's lines: its first, then those indented to its content, or
    // lazily continuing its paragraph.
    Lines item{lines[i].size() > m.content ? lines[i].substr(m.content) : std::string_view{}};
    bool blank_inside = false;
    ++i;
    while (i < lines.size()) {
      const std::string_view l = lines[i];
      if (IsBlank(l)) {
        std::size_t j = i;
        while (j < lines.size() && IsBlank(lines[j])) ++j;
        if (j < lines.size() && Indent(lines[j]) >= m.content) {
          blank_inside = true;
          item.insert(item.end(), lines.begin() + i, lines.begin() + j);
          i = j;
          continue;
        }
        break;
      }
      Marker sibling;
      if (Indent(l) >= m.content) {
        item.push_back(l.substr(m.content));
      } else if (ListMarker(l, &sibling) && sibling.ordered == first.ordered &&
                 sibling.delim == first.delim) {
        break;  // the next item
      } else if (!StartsBlock(lines, i) && !IsBlank(item.back())) {
        item.push_back(l);  // a lazy continuation
      } else {
        break;
      }
      ++i;
    }
    out.Open("li");
    if (depth >= kMaxMarkdownDepth) {
      for (std::string_view l : item) out.Text(l).Text("\n");
    } else {
      Blocks(out, item, depth + 1, !blank_inside);
    }
    out.Close("li");
    // The next item, of the same list; blank lines between items allowed.
    std::size_t j = i;
    while (j < lines.size() && IsBlank(lines[j])) ++j;
    Marker next;
    if (j < lines.size() && ListMarker(lines[j], &next) && next.ordered == first.ordered &&
        next.delim == first.delim) {
      i = j;
      m = next;
      continue;
    }
    break;
  }
  out.Close(first.ordered ? Name("ol") : Name("ul"));
}

void Blocks(Html& out, const Lines& lines, int depth, bool tight) {
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string_view l = lines[i];
    if (IsBlank(l)) {
      ++i;
      continue;
    }
    Fence fence;
    std::string_view text;
    Marker marker;
    std::string align;
    if (OpensFence(l, &fence)) {
      std::string code;
      for (++i; i < lines.size() && !ClosesFence(lines[i], fence); ++i) {
        code.append(lines[i]);
        code += '\n';
      }
      if (i < lines.size()) ++i;
      const std::string_view lang = fence.info.substr(0, fence.info.find_first_of(" \t"));
      // Focusable: it scrolls sideways, and a keyboard must reach what it hides.
      out.Open("pre", {{"tabindex", "0"}, {"data-lang", lang, !lang.empty()}})
          .Element("code", code)
          .Close("pre");
    } else if (const int level = HeadingLevel(l, &text); level != 0) {
      Heading(out, level, text);
      ++i;
    } else if (IsBreak(l)) {
      out.Void("hr");
      ++i;
    } else if (IsQuote(l)) {
      Lines inner;
      for (; i < lines.size() && IsQuote(lines[i]); ++i) inner.push_back(StripQuote(lines[i]));
      out.Open("blockquote");
      if (depth >= kMaxMarkdownDepth) {
        out.Open("p");
        for (std::string_view q : inner) out.Text(q).Text("\n");
        out.Close("p");
      } else {
        Blocks(out, inner, depth + 1, false);
      }
      out.Close("blockquote");
    } else if (ListMarker(l, &marker)) {
      List(out, lines, i, marker, depth);
    } else if (IsTableStart(lines, i, &align)) {
      Table(out, lines, i, align);
    } else {
      std::string para(Trim(l));
      for (++i; i < lines.size() && !IsBlank(lines[i]) && !StartsBlock(lines, i); ++i) {
        para += '\n';
        para.append(Trim(lines[i]));
      }
      if (!tight) out.Open("p");
      Inline(out, para, depth, true);
      if (!tight) out.Close("p");
    }
  }
}

}  // namespace

void RenderMarkdown(Html& out, std::string_view text) {
  Lines lines;
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t nl = text.find('\n', from);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(from, nl - from);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    from = nl + 1;
  }
  Blocks(out, lines, 0, false);
}

}  // namespace origin::ui
