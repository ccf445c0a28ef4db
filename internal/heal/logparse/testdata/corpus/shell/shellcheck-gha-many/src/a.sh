#!/bin/bash
name=$1
echo $name
rm -rf $HOME/$name
