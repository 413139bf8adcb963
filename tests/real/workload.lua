-- SPDX-License-Identifier: MIT
-- workload.lua: a deterministic Lua workload for sledtrace's real-program
-- checks and benches (tests/real/build_lua.sh builds the interpreter):
-- tables, strings, closures, coroutines, sorting, a small parser and the
-- garbage collector.  Writes its results to the file named by arg[1],
-- runs arg[2] rounds (default 1) and prints a checksum.  Every run of one
-- binary makes the same calls, with a Lua built with a fixed hash seed.
local N = tonumber(arg[2]) or 1

local function words(n)
  local out, seed = {}, 12345
  for i = 1, n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    local len = 2 + seed % 9
    local w = {}
    for k = 1, len do
      w[k] = string.char(97 + (seed >> (k * 2)) % 26)
    end
    out[i] = table.concat(w)
  end
  return out
end

-- table.sort picks random pivots in arrays over 100 elements (its call
-- counts would differ from run to run): a merge sort of our own for those.
local function merge_sort(a, less)
  if #a <= 64 then
    table.sort(a, less)
    return a
  end
  local mid, l, r = #a // 2, {}, {}
  for i = 1, mid do l[i] = a[i] end
  for i = mid + 1, #a do r[i - mid] = a[i] end
  l, r = merge_sort(l, less), merge_sort(r, less)
  local out, i, j = {}, 1, 1
  while i <= #l or j <= #r do
    if j > #r or (i <= #l and not less(r[j], l[i])) then
      out[#out + 1] = l[i]; i = i + 1
    else
      out[#out + 1] = r[j]; j = j + 1
    end
  end
  return out
end

local function count_words(list)
  -- keys in first-seen order: pairs() would follow the string hashes,
  -- which Lua seeds anew in every run
  local counts, keys = {}, {}
  for _, w in ipairs(list) do
    if not counts[w] then keys[#keys + 1] = w end
    counts[w] = (counts[w] or 0) + 1
  end
  keys = merge_sort(keys, function(a, b)
    if counts[a] ~= counts[b] then return counts[a] > counts[b] end
    return a < b
  end)
  return keys, counts
end

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function producer(list)
  return coroutine.wrap(function()
    for _, w in ipairs(list) do coroutine.yield(w:upper()) end
  end)
end

-- a tiny expression parser and evaluator
local function parse(s)
  local pos = 1
  local function peek() return s:sub(pos, pos) end
  local expr
  local function atom()
    if peek() == "(" then pos = pos + 1; local v = expr(); pos = pos + 1; return v end
    local num = s:match("^%d+", pos); pos = pos + #num; return tonumber(num)
  end
  local function term()
    local v = atom()
    while peek() == "*" do pos = pos + 1; v = v * atom() end
    return v
  end
  expr = function()
    local v = term()
    while peek() == "+" or peek() == "-" do
      local op = peek(); pos = pos + 1
      local r = term()
      if op == "+" then v = v + r else v = v - r end
    end
    return v
  end
  return expr()
end

local out = assert(io.open(arg[1], "w"))
local sum = 0
for round = 1, N do
  local list = words(3000)
  local keys, counts = count_words(list)
  for i = 1, 20 do out:write(string.format("%s %d\n", keys[i], counts[keys[i]])) end
  local n = 0
  for w in producer(list) do n = n + #w end
  sum = sum + n + fib(16)
  for i = 1, 300 do
    local e = string.format("(%d+%d)*%d-%d", i, i % 7, i % 13 + 1, i % 5)
    sum = sum + parse(e)
  end
  local t = {}
  for i = 1, 1000 do t[i] = {id = i, name = "n" .. i} end
  t = merge_sort(t, function(a, b) return a.name < b.name end)
  out:write(t[1].name, " ", t[#t].name, "\n")
  collectgarbage()
end
out:write(string.format("sum %d\n", sum))
out:close()
print("checksum", sum)
