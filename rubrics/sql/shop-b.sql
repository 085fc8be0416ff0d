-- The shop database of sql/shop.sql with other rows (the same schema): the sql-answer rubric's
-- second database. A query must return the reference's rows on both, so one that hard-codes the
-- answer read off shop.sql, or whose wrong filter selects the right rows there by luck, fails here
-- (test-suite accuracy, Zhong et al. 2020). Keep it small and deterministic, like shop.sql.
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
  (1, 'Katherine Johnson', 'katherine@example.org', 'US', '2024-02-11'),
  (2, 'Tim Berners-Lee', 'tim@example.org', 'UK', '2024-03-05'),
  (3, 'Ada Lovelace', 'ada@example.org', 'FR', '2024-04-18'),
  (4, 'Margaret Hamilton', 'margaret@example.org', 'UK', '2024-06-02'),
  (5, 'Linus Torvalds', 'linus@example.org', 'FI', '2024-08-27'),
  (6, 'Frances Allen', 'frances@example.org', 'UK', '2024-10-14'),
  (7, 'Alan Turing', 'alan@example.org', 'US', '2024-11-30');

INSERT INTO products VALUES
  (1, 'Mechanical keyboard', 'peripherals', 94.00),
  (2, 'Wireless mouse', 'peripherals', 19.90),
  (3, '27-inch monitor', 'displays', 249.00),
  (4, 'USB-C hub', 'accessories', 34.50),
  (5, 'Laptop stand', 'accessories', 32.00),
  (6, 'Noise-cancelling headphones', 'audio', 159.00),
  (7, 'Webcam', 'peripherals', 59.00);

INSERT INTO orders VALUES
  (201, 2, '2024-08-02', 'shipped'),
  (202, 4, '2024-08-09', 'cancelled'),
  (203, 1, '2024-09-01', 'delivered'),
  (204, 6, '2024-09-19', 'delivered'),
  (205, 3, '2024-10-05', 'cancelled'),
  (206, 7, '2024-10-28', 'pending'),
  (207, 2, '2024-11-11', 'delivered'),
  (208, 5, '2024-11-20', 'delivered');

INSERT INTO order_items VALUES
  (201, 7, 2), (201, 2, 1),
  (202, 1, 1),
  (203, 3, 1), (203, 6, 2),
  (204, 5, 3),
  (205, 4, 1), (205, 2, 2),
  (206, 1, 1),
  (207, 4, 1), (207, 7, 1),
  (208, 2, 4), (208, 3, 1);
