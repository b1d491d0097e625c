<?php
// wayfarer: pcov around every PHP request of the server under test, prepended to each
// script by an ini file wayfarer adds (PHP_INI_SCAN_DIR). PHP runs each request on its
// own, so each request writes the lines of the server's own files it ran to a file of its
// own, which wayfarer reads once. Nothing happens without WAYFARER_COVERAGE_DIR.
(function () {
    $dir = getenv('WAYFARER_COVERAGE_DIR');
    if (!$dir) {
        return;
    }
    if (!function_exists('pcov\start')) {
        @file_put_contents("$dir/procs/missing." . getmypid(), PHP_BINARY);
        return;
    }
    $split = function ($name) {
        return array_values(array_filter(explode("\n", (string) getenv($name)), 'strlen'));
    };
    $include = $split('WAYFARER_COVERAGE_INCLUDE');
    $omit = $split('WAYFARER_COVERAGE_OMIT');
    $self = __FILE__;
    \pcov\start();
    register_shutdown_function(function () use ($dir, $include, $omit, $self) {
        \pcov\stop();
        $out = [];
        foreach (\pcov\collect(\pcov\all) as $path => $lines) {
            if ($path === $self) {
                continue;
            }
            $keep = !$include;
            foreach ($include as $p) {
                $keep = $keep || fnmatch($p, $path);
            }
            foreach ($omit as $p) {
                $keep = $keep && !fnmatch($p, $path);
            }
            if (!$keep) {
                continue;
            }
            $run = [];
            foreach ($lines as $line => $count) {
                if ($count > 0) {
                    $run[] = $line;
                }
            }
            if ($run) {
                sort($run);
                $out[$path] = $run;
            }
        }
        \pcov\clear();
        $name = "$dir/data/php." . getmypid() . '.' . uniqid('', true) . '.json';
        if (@file_put_contents("$name.tmp", json_encode($out, JSON_UNESCAPED_SLASHES)) !== false) {
            @rename("$name.tmp", $name);
        }
    });
})();
