-- A small shop database for the sql-answer rubric: schema and rows, loaded into an in-memory
-- SQLite database for every check. Keep it small (it is re-read per check) and deterministic.
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  country TEXT NOT NULL,
  signup_date TEXT NOT NULL           -- ISO date
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  price REAL NOT NULL                 -- unit price in EUR
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  order_date TEXT NOT NULL,           -- ISO date
  status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled'))
);
CREATE TABLE order_items (
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (order_id, product_id)
);

INSERT INTO customers VALUES
  (1, 'Ada Lovelace', 'ada@example.org', 'UK', '2024-01-15'),
  (2, 'Grace Hopper', 'grace@example.org', 'US', '2024-02-03'),
  (3, 'Alan Turing', 'alan@example.org', 'UK', '2024-03-22'),
  (4, 'Edsger Dijkstra', 'edsger@example.org', 'NL', '2024-05-10'),
  (5, 'Barbara Liskov', 'barbara@example.org', 'US', '2024-07-01'),
  (6, 'Donald Knuth', 'don@example.org', 'US', '2024-09-30');

INSERT INTO products VALUES
  (1, 'Mechanical keyboard', 'peripherals', 89.90),
  (2, 'Wireless mouse', 'peripherals', 24.50),
  (3, '27-inch monitor', 'displays', 219.00),
  (4, 'USB-C hub', 'accessories', 39.99),
  (5, 'Laptop stand', 'accessories', 29.00),
  (6, 'Noise-cancelling headphones', 'audio', 149.00);

INSERT INTO orders VALUES
  (101, 1, '2024-08-01', 'delivered'),
  (102, 2, '2024-08-03', 'delivered'),
  (103, 1, '2024-09-12', 'shipped'),
  (104, 3, '2024-09-15', 'cancelled'),
  (105, 4, '2024-10-02', 'delivered'),
  (106, 2, '2024-10-20', 'pending'),
  (107, 5, '2024-11-05', 'delivered');

INSERT INTO order_items VALUES
  (101, 1, 1), (101, 2, 1),
  (102, 3, 2),
  (103, 4, 1), (103, 5, 1),
  (104, 6, 1),
  (105, 1, 1), (105, 6, 1),
  (106, 2, 3),
  (107, 3, 1), (107, 4, 2);
