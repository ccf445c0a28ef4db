#!/bin/bash
x=`date`
echo "$x"
