-- A report over the Library example: books per author, best rated first.
-- Run it with `strata run examples/Library/report.lua --store library.sqlite`.

for _, author in ipairs(ctx:fetch("Author", { sort = { "name" } })) do
  print(string.format("%s (%d books)", author.name, #author.books))
  for _, book in ipairs(ctx:fetch("Book", { where = "author == %@", args = { author }, sort = { "-rating" } })) do
    print(string.format("  %-28s %.1f", book.title, book.rating))
  end
end
