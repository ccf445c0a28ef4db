<?php

require __DIR__ . '/../src/Report.php';

$report = new Report([['qty' => 2, 'price' => 3], ['qty' => 1, 'price' => 'n/a']]);
echo $report->total(), "\n";
