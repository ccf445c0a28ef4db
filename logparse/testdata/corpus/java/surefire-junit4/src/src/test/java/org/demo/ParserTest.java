package org.demo;
