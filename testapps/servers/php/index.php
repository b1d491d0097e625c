<?php
// A notes app of a few routes for PHP's built-in server: the bundled PHP server for
// wayfarer's server-side tests (its coverage read through pcov, its output as a failure's
// evidence).
//
//   php -S 127.0.0.1:PORT -t php   (this folder as the document root: every path comes
//                                   here, and PHP prepends what its ini files say)
//
// Routes: / (the notes), /notes/N (one note), /report (a monthly report whose average
// divides by the notes of an empty month: a 500, its error in the server's log).

const NOTES = [
    ['title' => 'Groceries', 'body' => 'Milk, eggs, bread.'],
    ['title' => 'Ideas', 'body' => 'A wiki for the garden.'],
    ['title' => 'Trip', 'body' => 'Train at 9:40, platform 4.'],
];

function page($title, $body)
{
    $t = htmlspecialchars($title);
    return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>$t</title></head>"
        . '<body><nav><a href="/">Notes</a> <a href="/report">Monthly report</a></nav>'
        . "<main><h1>$t</h1>$body</main></body></html>";
}

function home()
{
    $items = '';
    foreach (NOTES as $i => $n) {
        $items .= "<li><a href=\"/notes/$i\">" . htmlspecialchars($n['title']) . '</a></li>';
    }
    return page('Notes', "<ul>$items</ul>");
}

function note($i)
{
    if (!isset(NOTES[$i])) {
        http_response_code(404);
        return page('Not found', '<p>No such note.</p>');
    }
    return page(NOTES[$i]['title'], '<p>' . htmlspecialchars(NOTES[$i]['body']) . '</p>');
}

function average_length($month)
{
    $notes = array_filter(NOTES, fn ($n) => ($n['month'] ?? null) === $month);
    return intdiv(array_sum(array_map(fn ($n) => strlen($n['body']), $notes)), count($notes));
}

function report()
{
    return page('Monthly report', '<p>Average length: ' . average_length('2026-12') . '</p>');
}

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
try {
    if ($path === '/') {
        echo home();
    } elseif (preg_match('#^/notes/(\d+)$#', $path, $m)) {
        echo note((int) $m[1]);
    } elseif ($path === '/report') {
        echo report();
    } else {
        http_response_code(404);
        echo page('Not found', '<p>No such page.</p>');
    }
} catch (Throwable $e) {
    error_log("Internal Server Error: $path\n" . $e);
    http_response_code(500);
    echo page('Server error', '<p>Something went wrong.</p>');
}
