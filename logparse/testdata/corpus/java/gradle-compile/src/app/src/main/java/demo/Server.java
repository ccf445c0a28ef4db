package demo;
