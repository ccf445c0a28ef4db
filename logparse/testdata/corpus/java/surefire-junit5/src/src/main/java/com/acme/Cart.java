package com.acme;
